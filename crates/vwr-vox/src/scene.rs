//! The scene graph: MagicaVoxel's nTRN/nGRP/nSHP nodes flattened into placed model instances.
//!
//! Positions are kept doubled (`2·p`) so that the half-voxel centre of an even-sized model stays
//! an integer through every rotation; the final cell is `floor(p)`.

use dot_vox::{DotVoxData, SceneNode};

use crate::error::{Result, VoxError};
use crate::warning::VoxWarning;

/// An affine map on doubled coordinates: `p' = r·p + t2` with `r` a signed permutation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Affine {
    pub(crate) r: [[i64; 3]; 3],
    pub(crate) t2: [i64; 3],
}

impl Affine {
    pub(crate) const IDENTITY: Affine = Affine {
        r: [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
        t2: [0, 0, 0],
    };

    pub(crate) fn apply(&self, p: [i64; 3]) -> [i64; 3] {
        let mut out = self.t2;
        for (row, o) in self.r.iter().zip(out.iter_mut()) {
            *o += row[0] * p[0] + row[1] * p[1] + row[2] * p[2];
        }
        out
    }

    /// `self ∘ inner`: applies `inner` first.
    pub(crate) fn then_outer(inner: &Affine, outer: &Affine) -> Affine {
        let mut r = [[0i64; 3]; 3];
        for (i, row) in r.iter_mut().enumerate() {
            for (j, v) in row.iter_mut().enumerate() {
                *v = (0..3).map(|k| outer.r[i][k] * inner.r[k][j]).sum();
            }
        }
        Affine {
            r,
            t2: outer.apply(inner.t2),
        }
    }
}

/// Decodes MagicaVoxel's rotation byte (`_r`): bits 0–1 and 2–3 are the columns of the
/// non-zero entries of rows 0 and 1 (row 2 takes the remaining one), bits 4–6 their signs.
pub(crate) fn rotation_from_byte(b: u8) -> Option<[[i64; 3]; 3]> {
    let c0 = (b & 3) as usize;
    let c1 = ((b >> 2) & 3) as usize;
    if b >= 128 || c0 > 2 || c1 > 2 || c0 == c1 {
        return None;
    }
    let c2 = 3 - c0 - c1;
    let mut r = [[0i64; 3]; 3];
    for (row, col) in [c0, c1, c2].into_iter().enumerate() {
        r[row][col] = if b & (1 << (4 + row)) != 0 { -1 } else { 1 };
    }
    Some(r)
}

/// The rotation byte of a signed permutation (the inverse of [`rotation_from_byte`]).
#[cfg(test)]
pub(crate) fn rotation_to_byte(r: &[[i64; 3]; 3]) -> u8 {
    let col = |row: usize| (0..3).find(|&c| r[row][c] != 0).unwrap_or(0) as u8;
    let mut b = col(0) | (col(1) << 2);
    for (row, line) in r.iter().enumerate() {
        if line.iter().sum::<i64>() < 0 {
            b |= 1 << (4 + row);
        }
    }
    b
}

/// One model placed in the scene.
pub(crate) struct Instance {
    pub(crate) model: usize,
    /// Maps the doubled centre offset of a voxel (`2v + 1 - size`) to doubled scene space.
    pub(crate) affine: Affine,
}

/// Flattens the scene graph from its root (node 0). A file without a scene graph (older
/// MagicaVoxel) places each model at the origin unrotated.
pub(crate) fn instances(
    data: &DotVoxData,
    frame: u32,
    warnings: &mut Vec<VoxWarning>,
) -> Result<Vec<Instance>> {
    if data.scenes.is_empty() {
        // Without a scene graph, several models are the frames of an animation (MagicaVoxel
        // before 0.99 wrote them so, with a PACK chunk): one of them is the model.
        let models = data.models.len();
        let chosen: Vec<usize> = if models > 1 {
            let index = frame as usize;
            if index >= models {
                return Err(VoxError::NoSuchFrame {
                    frame,
                    frames: models,
                });
            }
            warnings.push(VoxWarning::FrameChosen {
                frame,
                frames: models,
            });
            vec![index]
        } else {
            (0..models).collect()
        };
        return Ok(chosen
            .into_iter()
            .map(|m| {
                // Without a scene, voxel v sits at v: undo the centring of `2v + 1 - size`.
                let s = &data.models[m].size;
                let size = [s.x as i64, s.y as i64, s.z as i64];
                Instance {
                    model: m,
                    affine: Affine {
                        t2: size.map(|d| d - 1),
                        ..Affine::IDENTITY
                    },
                }
            })
            .collect());
    }
    Walk::new(data, frame, warnings).run()
}

/// Deepest nesting of scene nodes followed (MagicaVoxel writes 4 to a few dozen levels).
pub(crate) const MAX_SCENE_DEPTH: usize = 1024;
/// Most node visits of one scene graph, shared nodes counted each time they are reached: a
/// graph whose groups reference the same child twice doubles with each level.
pub(crate) const MAX_SCENE_VISITS: u64 = 1 << 20;

/// A step of the depth-first walk: enter a node with the transform above it, or leave one.
enum Step {
    Enter { id: u32, acc: Affine, depth: usize },
    Leave(u32),
}

/// The scene-graph walk: a shared node (MagicaVoxel's instances: several transforms naming the
/// same group or shape) is placed each time it is reached; a node met again below itself is a
/// cycle. Iterative, so a deep graph cannot overflow the stack.
struct Walk<'a> {
    data: &'a DotVoxData,
    frame: u32,
    warnings: &'a mut Vec<VoxWarning>,
    /// Nodes on the path from the root to the current node.
    on_path: Vec<bool>,
    /// Nodes already warned about (a shared node warns once).
    warned: Vec<bool>,
    visits: u64,
    out: Vec<Instance>,
}

impl<'a> Walk<'a> {
    fn new(data: &'a DotVoxData, frame: u32, warnings: &'a mut Vec<VoxWarning>) -> Walk<'a> {
        let count = data.scenes.len();
        Walk {
            data,
            frame,
            warnings,
            on_path: vec![false; count],
            warned: vec![false; count],
            visits: 0,
            out: Vec::new(),
        }
    }

    fn warn_once(&mut self, node: u32, warning: VoxWarning) {
        let seen = &mut self.warned[node as usize];
        if !*seen {
            *seen = true;
            self.warnings.push(warning);
        }
    }

    fn run(mut self) -> Result<Vec<Instance>> {
        let mut stack = vec![Step::Enter {
            id: 0,
            acc: Affine::IDENTITY,
            depth: 1,
        }];
        while let Some(step) = stack.pop() {
            let (id, acc, depth) = match step {
                Step::Leave(id) => {
                    self.on_path[id as usize] = false;
                    continue;
                }
                Step::Enter { id, acc, depth } => (id, acc, depth),
            };
            let node = id as usize;
            if self.on_path[node] {
                return Err(VoxError::SceneCycle { node: id });
            }
            if depth > MAX_SCENE_DEPTH {
                return Err(VoxError::SceneTooDeep {
                    node: id,
                    depth,
                    limit: MAX_SCENE_DEPTH,
                });
            }
            self.visits += 1;
            if self.visits > MAX_SCENE_VISITS {
                return Err(VoxError::SceneExpansion {
                    what: "node visits",
                    limit: MAX_SCENE_VISITS,
                });
            }
            self.on_path[node] = true;
            stack.push(Step::Leave(id));
            let count = self.data.scenes.len();
            let child_ok = |child: u32| -> Result<u32> {
                if (child as usize) < count {
                    Ok(child)
                } else {
                    Err(VoxError::MissingNode {
                        node: id,
                        child,
                        count,
                    })
                }
            };
            let enter = |child: u32, acc: Affine| -> Result<Step> {
                Ok(Step::Enter {
                    id: child_ok(child)?,
                    acc,
                    depth: depth + 1,
                })
            };
            let data = self.data;
            match &data.scenes[node] {
                SceneNode::Transform { child, .. } => {
                    if let Some(local) = self.transform(id)? {
                        stack.push(enter(*child, Affine::then_outer(&local, &acc))?);
                    }
                }
                SceneNode::Group { children, .. } => {
                    for &c in children.iter().rev() {
                        stack.push(enter(c, acc)?);
                    }
                }
                SceneNode::Shape { .. } => self.shape(id, acc)?,
            }
        }
        Ok(self.out)
    }

    /// The local transform of transform node `id` at the chosen frame, `None` when the node is
    /// hidden (or on a hidden layer).
    fn transform(&mut self, id: u32) -> Result<Option<Affine>> {
        let data = self.data;
        let SceneNode::Transform {
            attributes,
            frames,
            layer_id,
            ..
        } = &data.scenes[id as usize]
        else {
            return Ok(None);
        };
        let hidden_layer = data
            .layers
            .get(*layer_id as usize)
            .is_some_and(|l| l.hidden());
        if attributes.get("_hidden").is_some_and(|h| h == "1") || hidden_layer {
            self.warn_once(id, VoxWarning::HiddenSkipped { node: id });
            return Ok(None);
        }
        if frames.len() > 1 {
            let frames = frames.len();
            self.warn_once(id, VoxWarning::AnimationIgnored { node: id, frames });
        }
        let mut local = Affine::IDENTITY;
        if let Some(frame) = keyframe(frames, |f| &f.attributes, self.frame) {
            if let Some(r) = frame.attributes.get("_r") {
                local.r = r
                    .trim()
                    .parse::<u8>()
                    .ok()
                    .and_then(rotation_from_byte)
                    .ok_or_else(|| VoxError::BadRotation {
                        node: id,
                        value: r.clone(),
                    })?;
            }
            if let Some(t) = frame.attributes.get("_t") {
                let bad = || VoxError::BadTranslation {
                    node: id,
                    value: t.clone(),
                };
                let parts: Vec<i64> = t
                    .split_whitespace()
                    .map(|s| s.parse::<i32>().map(i64::from))
                    .collect::<std::result::Result<_, _>>()
                    .map_err(|_| bad())?;
                let [x, y, z] = parts[..] else {
                    return Err(bad());
                };
                local.t2 = [2 * x, 2 * y, 2 * z];
            }
        }
        Ok(Some(local))
    }

    /// Places the model of shape node `id` at the chosen frame with transform `acc`.
    fn shape(&mut self, id: u32, acc: Affine) -> Result<()> {
        let data = self.data;
        let SceneNode::Shape { models, .. } = &data.scenes[id as usize] else {
            return Ok(());
        };
        if models.len() > 1 {
            let frames = models.len();
            self.warn_once(id, VoxWarning::AnimationIgnored { node: id, frames });
        }
        if let Some(m) = keyframe(models, |m| &m.attributes, self.frame) {
            if m.model_id as usize >= data.models.len() {
                return Err(VoxError::MissingModel {
                    node: id,
                    model: m.model_id,
                    count: data.models.len(),
                });
            }
            self.out.push(Instance {
                model: m.model_id as usize,
                affine: acc,
            });
        }
        Ok(())
    }
}

/// The keyframe in effect at `frame`: the last whose `_f` (0 when absent) is at most `frame`,
/// else the first.
fn keyframe<T>(frames: &[T], attributes: impl Fn(&T) -> &dot_vox::Dict, frame: u32) -> Option<&T> {
    let at = |f: &T| {
        attributes(f)
            .get("_f")
            .and_then(|v| v.trim().parse::<u32>().ok())
            .unwrap_or(0)
    };
    frames
        .iter()
        .filter(|f| at(f) <= frame)
        .max_by_key(|f| at(f))
        .or_else(|| frames.first())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_valid_rotation_byte_round_trips() {
        let mut n = 0;
        for b in 0u8..128 {
            if let Some(r) = rotation_from_byte(b) {
                n += 1;
                assert_eq!(rotation_to_byte(&r), b);
                // A signed permutation: each row and column has one ±1.
                for (i, row) in r.iter().enumerate() {
                    assert_eq!(row.iter().map(|v| v.abs()).sum::<i64>(), 1);
                    assert_eq!(r.iter().map(|line| line[i].abs()).sum::<i64>(), 1);
                }
            }
        }
        assert_eq!(n, 48);
        assert!(rotation_from_byte(3).is_none());
        assert!(rotation_from_byte(0).is_none());
        assert!(rotation_from_byte(200).is_none());
    }

    #[test]
    fn composition_applies_inner_first() {
        let rot = Affine {
            r: rotation_from_byte(0b0001_0001).unwrap(),
            t2: [0, 0, 0],
        };
        let shift = Affine {
            r: Affine::IDENTITY.r,
            t2: [10, 0, 0],
        };
        let p = [2, 4, 6];
        let both = Affine::then_outer(&shift, &rot);
        assert_eq!(both.apply(p), rot.apply(shift.apply(p)));
    }
}
