//! The JSON form of descriptions and verdicts (feature `json`).

use serde_json::{json, Value};

use super::{Decoded, Description, FieldValue, KnownMetadata, Verdict};

fn field_json(v: FieldValue) -> Value {
    match v {
        FieldValue::Uint(n) => json!(n),
        FieldValue::Float(x) => json!(x),
        FieldValue::Name(n) => json!(n),
    }
}

impl KnownMetadata {
    /// The fields as a JSON object (feature `json`).
    pub fn to_json(&self) -> Value {
        Value::Object(
            self.fields()
                .into_iter()
                .map(|(k, v)| (k.to_string(), field_json(v)))
                .collect(),
        )
    }
}

impl Decoded {
    /// The summary as a JSON object (feature `json`).
    pub fn to_json(&self) -> Value {
        match self {
            Decoded::Texture {
                format,
                channels,
                levels,
                ranges,
            } => {
                let ranges: Vec<[usize; 2]> = ranges.iter().map(|r| [r.start, r.end]).collect();
                json!({
                    "format": format.0,
                    "format_name": format.name(),
                    "channels": channels,
                    "levels": Decoded::level_labels(levels),
                    "level_ranges": ranges,
                })
            }
            Decoded::Audio {
                frames,
                duration_secs,
            } => json!({"frames": frames, "duration_secs": duration_secs}),
            Decoded::Mesh {
                vertices,
                indices,
                sub_meshes,
                streams,
                joints,
            } => {
                let none = |v: u32| (v != crate::mesh::SubMeshEntry::NONE).then_some(v);
                let subs: Vec<Value> = sub_meshes
                    .iter()
                    .map(|s| json!({"first_index": s.first_index, "index_count": s.index_count, "material": none(s.material), "node": none(s.node), "bounds_min": s.bounds_min, "bounds_max": s.bounds_max}))
                    .collect();
                let joints: Vec<Value> = joints
                    .iter()
                    .map(|(name, parent)| json!({"name": name, "parent": (*parent != crate::mesh::JointEntry::ROOT).then_some(*parent)}))
                    .collect();
                json!({"vertices": vertices, "indices": indices, "streams": streams, "sub_meshes": subs, "joints": joints})
            }
            Decoded::Shader {
                stage,
                bytecode_bytes,
                spirv,
            } => {
                json!({"stage": stage.name(), "bytecode_bytes": bytecode_bytes, "spirv": spirv})
            }
            Decoded::Scene { sections } => {
                let secs: Vec<Value> = sections
                    .iter()
                    .map(|x| json!({"type_id": x.type_id, "component": crate::scene::scene_component::name(x.type_id), "count": x.count}))
                    .collect();
                json!({ "sections": secs })
            }
            Decoded::Prefab { entities } => {
                let ents: Vec<Value> = entities
                    .iter()
                    .map(|e| json!({"name": e.name, "components": e.components, "children": e.children}))
                    .collect();
                json!({ "entities": ents })
            }
            Decoded::Font {
                glyphs,
                kerning_pairs,
                codepoints,
                atlas,
                format,
            } => json!({
                "glyphs": glyphs,
                "kerning_pairs": kerning_pairs,
                "first_codepoint": codepoints.0,
                "last_codepoint": codepoints.1,
                "atlas_width": atlas.0,
                "atlas_height": atlas.1,
                "format": format,
            }),
            Decoded::Animation { sample_rate, clips } => {
                let clips: Vec<Value> = clips
                    .iter()
                    .map(|c| json!({"name": c.name, "duration": c.duration, "frames": c.frames, "channels": c.channels, "constant_channels": c.constant_channels, "nodes": c.nodes, "max_error_ts": c.max_error_ts, "max_error_rotation": c.max_error_rotation}))
                    .collect();
                json!({"sample_rate": sample_rate, "clips": clips})
            }
        }
    }
}

impl Description {
    /// The description as one JSON object, with `file` as its `"file"` field (feature
    /// `json`). Fields that the damage hides are left out, as in the text form.
    pub fn to_json(&self, file: &str) -> Value {
        let mut j = json!({"file": file, "file_size": self.file_size});
        if let Some(h) = &self.header {
            j["magic"] = json!(h.magic);
            j["version_major"] = json!(h.version_major);
            j["version_minor"] = json!(h.version_minor);
            j["type"] = json!(h.asset_type.0);
            j["type_name"] = json!(h.asset_type.name());
            j["flags"] = json!(h.flags.0);
            j["flag_names"] = json!(h.flags.names());
            j["unknown_flag_bits"] = json!(h.flags.unknown_bits());
            j["metadata_size"] = json!(h.metadata_size);
            j["data_size"] = json!(h.data_size);
            j["payload_crc"] = json!(h.crc32);
            j["payload_alignment"] = json!(h.asset_type.payload_alignment());
        }
        if let Some(l) = &self.layout {
            let c = &l.crcs;
            j["offsets"] = json!({"metadata": l.metadata_offset, "payload": l.payload_offset, "footer": l.footer_offset});
            j["payload_crc_computed"] = json!(c.payload_computed);
            j["footer_crc_computed"] = json!(c.footer_computed);
            j["payload_crc_ok"] = json!(c.payload_ok());
            j["footer_crc_ok"] = json!(c.footer_ok());
            j["footer_crc"] = json!(c.footer_stored);
        }
        if let Some(m) = &self.metadata {
            j["metadata"] = m.to_json();
        }
        if let Some(ix) = &self.encoding {
            j["encoding"] = json!({
                "codec": ix.codec().name(),
                "encrypted": ix.is_encrypted(),
                "cipher": ix.cipher().map(|c| c.name()),
                "block_size": ix.block_size,
                "block_count": ix.block_count,
                "plain_size": ix.plain_size,
                "plain_crc32": ix.plain_crc32,
            });
        }
        match &self.decoded {
            Some(Ok(d)) => j["decoded"] = d.to_json(),
            Some(Err(e)) => j["decode_error"] = json!(e.to_string()),
            None => {}
        }
        let err = self.error.as_ref();
        j["valid"] = json!(err.is_none());
        // false: encrypted and not checked for want of a key (`valid` is the container's).
        j["payload_verified"] = json!(err.is_none() && !self.payload_unverified());
        j["check"] = json!(err.map(|e| e.check_name()));
        j["error"] = json!(err.map(|e| e.to_string()));
        j
    }
}

impl Verdict {
    /// The verdict as a JSON object for `file` (feature `json`).
    pub fn to_json(&self, file: &str) -> Value {
        match self {
            Verdict::Valid {
                asset_type,
                file_size,
            } => {
                json!({"file": file, "valid": true, "type": asset_type.0, "type_name": asset_type.name(), "file_size": file_size})
            }
            Verdict::Invalid(e) => {
                json!({"file": file, "valid": false, "check": e.check_name(), "error": e.to_string()})
            }
        }
    }
}
