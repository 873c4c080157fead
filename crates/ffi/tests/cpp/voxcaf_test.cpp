// The C++ test program of the voxcaf C API (built and run by tests/cxx.rs with g++).
//
// It re-runs, through the C API only, the original engines' own test scenarios:
//  - Galaxy Eggbert's world library: the save/load example of its documentation and its palette
//    behaviour (local palettes of up to 256 entries, bit packing that grows and round-trips);
//  - the Caffeine engine's tests/test_caf.cpp: its 27 test cases (header layout, helpers, asset
//    types, flags, metadata sizes, CRC-32, writer/loader round trips, corruption);
// then an engine's loop (mesh every chunk, edit, re-mesh only what a changed-chunk watch
// reports); and loads every golden file written by the original implementations.
//
// Usage: voxcaf_test TMPDIR [GOLDEN_DIR]

#include "voxcaf.h"

#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

static int g_checks = 0;
static int g_failures = 0;
static const char *g_test = "";

#define CHECK(cond)                                                                     \
    do {                                                                                \
        ++g_checks;                                                                     \
        if (!(cond)) {                                                                  \
            ++g_failures;                                                               \
            const char *e = voxcaf_last_error();                                        \
            std::fprintf(stderr, "FAIL %s:%d [%s]: %s (last error: %s)\n", __FILE__,     \
                         __LINE__, g_test, #cond, e ? e : "none");                       \
        }                                                                               \
    } while (0)

#define OK(call) CHECK((call) == VOXCAF_OK)

static std::string g_tmp;
static std::string tmp(const char *name) { return g_tmp + "/" + name; }

static std::vector<uint8_t> read_file(const fs::path &p) {
    std::ifstream f(p, std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), {});
}

static uint16_t blk(uint16_t type, uint8_t meta) { return (uint16_t)((type << 4) | meta); }

// A world handle that frees itself.
struct World {
    VoxcafWorld *w = nullptr;
    ~World() { voxcaf_world_free(w); }
};
struct Asset {
    VoxcafAsset *a = nullptr;
    ~Asset() { voxcaf_asset_free(a); }
};
struct Buffer {
    VoxcafBuffer b{nullptr, 0};
    ~Buffer() { voxcaf_buffer_free(&b); }
};
struct Watch {
    VoxcafWatch *w = nullptr;
    ~Watch() { voxcaf_watch_free(w); }
};

static void le32(std::vector<uint8_t> &v, uint32_t x) {
    for (int i = 0; i < 4; ++i) v.push_back((uint8_t)(x >> (8 * i)));
}
static void le64(std::vector<uint8_t> &v, uint64_t x) {
    for (int i = 0; i < 8; ++i) v.push_back((uint8_t)(x >> (8 * i)));
}
static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint32_t crc(const void *data, size_t len) {
    uint32_t out = 0;
    voxcaf_crc32(0, (const uint8_t *)data, len, &out);
    return out;
}

// The original suite's sample: a 4x4 RGBA texture, one level, payload 0..63.
static std::vector<uint8_t> sample_meta() {
    std::vector<uint8_t> m;
    le32(m, 4); le32(m, 4); le32(m, 0); le32(m, 1); le64(m, 0);
    return m;
}
static std::vector<uint8_t> sample_payload() {
    std::vector<uint8_t> p(64);
    for (int i = 0; i < 64; ++i) p[i] = (uint8_t)i;
    return p;
}
static std::vector<uint8_t> sample_file(uint16_t flags = 0) {
    auto m = sample_meta(), p = sample_payload();
    Buffer b;
    voxcaf_asset_write_buffer(VOXCAF_ASSET_TEXTURE, flags, m.data(), m.size(), p.data(), p.size(), &b.b);
    return std::vector<uint8_t>(b.b.data, b.b.data + b.b.len);
}
// Writes an asset of `type` and `flags` with `payload` to a buffer, loads it back and returns
// its header fields (every step must succeed).
static VoxcafAssetInfo written_info(uint16_t type, uint16_t flags, const std::vector<uint8_t> &payload) {
    Buffer b;
    OK(voxcaf_asset_write_buffer(type, flags, nullptr, 0, payload.data(), payload.size(), &b.b));
    Asset a;
    OK(voxcaf_asset_from_bytes(b.b.data, b.b.len, &a.a));
    VoxcafAssetInfo i{};
    OK(voxcaf_asset_info(a.a, &i));
    return i;
}
static int load_status(const std::vector<uint8_t> &v) {
    Asset a;
    return voxcaf_asset_from_bytes(v.data(), v.size(), &a.a);
}

// ---------------------------------------------------------------- world library scenarios

static void w01_save_load_example() {
    // The world library's documented example: grass over dirt, saved and loaded back.
    World world;
    OK(voxcaf_world_new(10, 10, 10, &world.w));
    const uint16_t grass = blk(1, 0), dirt = blk(2, 0);
    OK(voxcaf_world_set_block(world.w, 10, 5, 10, grass));
    OK(voxcaf_world_set_block(world.w, 10, 4, 10, dirt));
    OK(voxcaf_world_save(world.w, tmp("level.vwr").c_str(), VOXCAF_FORMAT_AUTO));
    World loaded;
    OK(voxcaf_world_open(tmp("level.vwr").c_str(), &loaded.w));
    uint16_t b = 0;
    OK(voxcaf_world_get_block(loaded.w, 10, 5, 10, &b));
    CHECK(b == grass);
    OK(voxcaf_world_get_block(loaded.w, 10, 4, 10, &b));
    CHECK(b == dirt);
    uint64_t n = 0;
    OK(voxcaf_world_count_non_air(loaded.w, &n));
    CHECK(n == 2);
}

static void w02_default_world_is_100_cubed() {
    World w;
    OK(voxcaf_world_new(10, 10, 10, &w.w));
    uint32_t c[3], b[3];
    OK(voxcaf_world_dims(w.w, c, b));
    CHECK(c[0] == 10 && c[1] == 10 && c[2] == 10);
    CHECK(b[0] == 100 && b[1] == 100 && b[2] == 100);
}

static void w03_outside_reads_air_writes_fail() {
    World w;
    OK(voxcaf_world_new(1, 1, 1, &w.w));
    uint16_t b = 77;
    OK(voxcaf_world_get_block(w.w, -1, 0, 0, &b));
    CHECK(b == 0);
    CHECK(voxcaf_world_set_block(w.w, 10, 0, 0, 1) == VOXCAF_ERR_OUT_OF_BOUNDS);
    const char *e = voxcaf_last_error();
    CHECK(e != nullptr && std::strlen(e) > 0);
    OK(voxcaf_world_get_block(w.w, 0, 0, 0, &b));
    CHECK(voxcaf_last_error() == nullptr);  // cleared by a successful call
}

static void w04_palette_holds_256_entries() {
    // One chunk: air plus 255 distinct values fill its 256-entry palette; one more is refused.
    World w;
    OK(voxcaf_world_new(1, 1, 1, &w.w));
    int placed = 0;
    for (int i = 0; i < 255; ++i) {
        if (voxcaf_world_set_block(w.w, i % 10, (i / 10) % 10, i / 100, blk((uint16_t)(i + 1), 0)) == VOXCAF_OK)
            ++placed;
    }
    CHECK(placed == 255);
    CHECK(voxcaf_world_set_block(w.w, 5, 5, 5, blk(999, 1)) == VOXCAF_ERR_LIMIT);
    // Overwriting with a value already in the palette still works.
    OK(voxcaf_world_set_block(w.w, 5, 5, 5, blk(7, 0)));
}

static void w05_palette_round_trips_through_a_file() {
    // Palettes of every size class (1, 2, 3..4, ..., 129..256 entries) save and load exactly.
    const int sizes[] = {1, 2, 3, 5, 9, 17, 33, 65, 129, 255};
    World w;
    OK(voxcaf_world_new(10, 1, 1, &w.w));
    for (int c = 0; c < 10; ++c)
        for (int i = 0; i < 1000; ++i)
            OK(voxcaf_world_set_block(w.w, c * 10 + i % 10, (i / 10) % 10, i / 100,
                                      blk((uint16_t)(1 + (i * 7) % sizes[c]), (uint8_t)(c % 16))));
    // 10x1x1 is not cubic: the v2 file needs a cubic world, so copy into a 10^3 one.
    World cube;
    OK(voxcaf_world_new(10, 10, 10, &cube.w));
    std::vector<uint16_t> box(100 * 10 * 10);
    int lo[3] = {0, 0, 0}, hi[3] = {99, 9, 9};
    OK(voxcaf_world_get_box(w.w, lo, hi, box.data(), box.size()));
    for (size_t i = 0; i < box.size(); ++i) {
        int x = (int)(i % 100), z = (int)((i / 100) % 10), y = (int)(i / 1000);
        OK(voxcaf_world_set_block(cube.w, x, y, z, box[i]));
    }
    Buffer bytes;
    OK(voxcaf_world_to_bytes(cube.w, VOXCAF_FORMAT_V2, &bytes.b));
    World back;
    OK(voxcaf_world_from_bytes(bytes.b.data, bytes.b.len, &back.w));
    std::vector<uint16_t> box2(box.size());
    OK(voxcaf_world_get_box(back.w, lo, hi, box2.data(), box2.size()));
    CHECK(box == box2);
}

static void w06_fields_round_trip() {
    World w;
    OK(voxcaf_world_new(2, 2, 2, &w.w));
    OK(voxcaf_world_set_sky_region(w.w, 7));
    OK(voxcaf_world_set_mission_number(w.w, 42));
    OK(voxcaf_world_set_spawn(w.w, 3, 4, 5));
    OK(voxcaf_world_save(w.w, tmp("fields.vwr").c_str(), VOXCAF_FORMAT_V2));
    World r;
    OK(voxcaf_world_open(tmp("fields.vwr").c_str(), &r.w));
    uint32_t sky = 0, mission = 0;
    bool has = false;
    int cell[3] = {0, 0, 0};
    OK(voxcaf_world_sky_region(r.w, &sky));
    OK(voxcaf_world_mission_number(r.w, &mission));
    OK(voxcaf_world_spawn(r.w, &has, cell));
    CHECK(sky == 7 && mission == 42 && has && cell[0] == 3 && cell[1] == 4 && cell[2] == 5);
    OK(voxcaf_world_clear_spawn(r.w));
    OK(voxcaf_world_spawn(r.w, &has, cell));
    CHECK(!has);
}

static void w07_move_objects_and_big_decor() {
    World w;
    OK(voxcaf_world_new(2, 2, 2, &w.w));
    VoxcafMoveObject m{};
    m.object_type = 7;
    m.pos_start[0] = 5.5f; m.pos_start[1] = 1.0f; m.pos_start[2] = 6.25f;
    m.pos_end[0] = 9.0f; m.pos_end[1] = 1.0f; m.pos_end[2] = 6.25f;
    m.speed = 2.5f;
    m.visual_icon = 12;
    int cell[3];
    OK(voxcaf_world_place_move_object(w.w, &m, cell));
    CHECK(cell[0] == 5 && cell[1] == 1 && cell[2] == 6);
    OK(voxcaf_world_place_big_decor(w.w, 3, 3, 3, 66));
    Buffer bytes;
    OK(voxcaf_world_to_bytes(w.w, VOXCAF_FORMAT_AUTO, &bytes.b));
    World r;
    OK(voxcaf_world_from_bytes(bytes.b.data, bytes.b.len, &r.w));
    size_t n = 0;
    OK(voxcaf_world_move_objects(r.w, nullptr, 0, &n));
    CHECK(n == 1);
    VoxcafPlacedMoveObject got[4];
    OK(voxcaf_world_move_objects(r.w, got, 4, &n));
    CHECK(n == 1 && got[0].object.object_type == 7 && got[0].object.speed == 2.5f &&
          got[0].object.pos_end[0] == 9.0f && got[0].object.visual_icon == 12);
    VoxcafBigDecor d[2];
    OK(voxcaf_world_big_decors(r.w, d, 2, &n));
    CHECK(n == 1 && d[0].icon == 66 && d[0].cell[0] == 3);
    OK(voxcaf_world_remove_move_object(r.w, 5, 1, 6));
    CHECK(voxcaf_world_remove_move_object(r.w, 5, 1, 6) == VOXCAF_ERR_NOT_FOUND);
    OK(voxcaf_world_remove_big_decor(r.w, 3, 3, 3));
    CHECK(voxcaf_world_remove_big_decor(r.w, 3, 3, 3) == VOXCAF_ERR_NOT_FOUND);
}

static void w08_boxes() {
    World w;
    OK(voxcaf_world_new(3, 3, 3, &w.w));
    int a[3] = {25, 0, 0}, b[3] = {0, 0, 25};  // corners in any order
    uint64_t changed = 0;
    OK(voxcaf_world_fill_box(w.w, a, b, blk(35, 0), &changed));
    CHECK(changed == 26 * 26);
    int lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    std::vector<uint16_t> v(8);
    OK(voxcaf_world_get_box(w.w, lo, hi, v.data(), v.size()));
    CHECK(v[0] == blk(35, 0) && v[1] == blk(35, 0) && v[4] == 0);  // y = 1 is air
    CHECK(voxcaf_world_get_box(w.w, lo, hi, v.data(), 7) == VOXCAF_ERR_INVALID_ARGUMENT);
}

static void w09_formats() {
    World odd;
    OK(voxcaf_world_new(2, 1, 3, &odd.w));
    Buffer b;
    // A non-cubic world: v3 under AUTO, refused as v2.
    OK(voxcaf_world_set_block(odd.w, 15, 9, 25, blk(35, 0)));
    OK(voxcaf_world_to_bytes(odd.w, VOXCAF_FORMAT_AUTO, &b.b));
    CHECK(b.b.len > 5 && std::memcmp(b.b.data, "VWR1\x03", 5) == 0);
    World back;
    OK(voxcaf_world_from_bytes(b.b.data, b.b.len, &back.w));
    uint16_t got = 0;
    OK(voxcaf_world_get_block(back.w, 15, 9, 25, &got));
    CHECK(got == blk(35, 0));
    Buffer b2;
    CHECK(voxcaf_world_to_bytes(odd.w, VOXCAF_FORMAT_V2, &b2.b) == VOXCAF_ERR_UNSUPPORTED);
    CHECK(voxcaf_world_to_bytes(odd.w, 9, &b2.b) == VOXCAF_ERR_INVALID_ARGUMENT);
    // A cube: v2 under AUTO and V2, v3 when asked.
    World cube;
    OK(voxcaf_world_new(1, 1, 1, &cube.w));
    Buffer b3;
    OK(voxcaf_world_to_bytes(cube.w, VOXCAF_FORMAT_V3, &b3.b));
    CHECK(b3.b.len > 5 && std::memcmp(b3.b.data, "VWR1\x03", 5) == 0);
    Buffer b4;
    OK(voxcaf_world_to_bytes(cube.w, VOXCAF_FORMAT_V2, &b4.b));
    CHECK(b4.b.len > 5 && std::memcmp(b4.b.data, "VWR1\x02", 5) == 0);
    CHECK(voxcaf_world_open(tmp("missing.vwr").c_str(), &cube.w) == VOXCAF_ERR_IO);
    uint8_t junk[8] = {'V', 'W', 'R', '1', 9, 9, 9, 9};
    World bad;
    CHECK(voxcaf_world_from_bytes(junk, sizeof junk, &bad.w) == VOXCAF_ERR_MALFORMED);
    CHECK(bad.w == nullptr);
}

static void w10_mesh_one_chunk() {
    World w;
    OK(voxcaf_world_new(2, 2, 2, &w.w));
    OK(voxcaf_world_set_block(w.w, 12, 3, 4, blk(35, 0)));  // one opaque cube in chunk (1,0,0)
    VoxcafMesh *m = nullptr;
    OK(voxcaf_mesh_chunk(w.w, 1, 0, 0, 0, &m));
    VoxcafMeshPart p;
    OK(voxcaf_mesh_part(m, VOXCAF_MESH_PART_OPAQUE, &p));
    CHECK(p.vertex_count == 24 && p.index_count == 36);  // six faces, two triangles each
    float minx = 1e9f, maxx = -1e9f;
    for (size_t i = 0; i < p.vertex_count; ++i) {
        minx = std::min(minx, p.positions[3 * i]);
        maxx = std::max(maxx, p.positions[3 * i]);
        CHECK(p.blocks[i] == blk(35, 0));
    }
    CHECK(minx == 12.0f && maxx == 13.0f);
    for (size_t i = 0; i < p.index_count; ++i) CHECK(p.indices[i] < p.vertex_count);
    OK(voxcaf_mesh_part(m, VOXCAF_MESH_PART_TRANSPARENT, &p));
    CHECK(p.vertex_count == 0);
    voxcaf_mesh_free(m);
    CHECK(voxcaf_mesh_chunk(w.w, 2, 0, 0, 0, &m) == VOXCAF_ERR_OUT_OF_BOUNDS);
}

static void w11_vox_convert() {
    World w;
    OK(voxcaf_world_new(2, 2, 2, &w.w));
    OK(voxcaf_world_set_block(w.w, 1, 2, 3, blk(261, 4)));
    OK(voxcaf_world_set_block(w.w, 11, 12, 13, blk(35, 0)));
    OK(voxcaf_world_save(w.w, tmp("model.vox").c_str(), VOXCAF_FORMAT_AUTO));
    OK(voxcaf_world_convert(tmp("model.vox").c_str(), tmp("model.vwr").c_str(), VOXCAF_FORMAT_AUTO));
    World r;
    OK(voxcaf_world_open(tmp("model.vwr").c_str(), &r.w));
    uint16_t b = 0;
    OK(voxcaf_world_get_block(r.w, 1, 2, 3, &b));
    CHECK(b == blk(261, 4));
    OK(voxcaf_world_get_block(r.w, 11, 12, 13, &b));
    CHECK(b == blk(35, 0));
}

static void w12_null_arguments() {
    CHECK(voxcaf_world_get_block(nullptr, 0, 0, 0, nullptr) == VOXCAF_ERR_INVALID_ARGUMENT);
    CHECK(voxcaf_last_error() != nullptr && std::strstr(voxcaf_last_error(), "NULL") != nullptr);
    World w;
    OK(voxcaf_world_new(1, 1, 1, &w.w));
    CHECK(voxcaf_world_get_block(w.w, 0, 0, 0, nullptr) == VOXCAF_ERR_INVALID_ARGUMENT);
    CHECK(voxcaf_world_new(0, 1, 1, &w.w) == VOXCAF_ERR_INVALID_ARGUMENT);
    voxcaf_world_free(nullptr);
    voxcaf_asset_free(nullptr);
    voxcaf_mesh_free(nullptr);
    voxcaf_watch_free(nullptr);
    voxcaf_buffer_free(nullptr);
    CHECK(std::strcmp(voxcaf_status_name(VOXCAF_ERR_LIMIT), "VOXCAF_ERR_LIMIT") == 0);
}

// What an engine keeps of a chunk's uploaded mesh, to compare meshes cheaply.
struct ChunkSig {
    size_t vertices = 0, indices = 0;
    double position_sum = 0, color_sum = 0;
    bool operator==(const ChunkSig &o) const {
        return vertices == o.vertices && indices == o.indices && position_sum == o.position_sum &&
               color_sum == o.color_sum;
    }
};
using Chunk = std::array<uint32_t, 3>;

// Meshes one chunk as an engine does before uploading it: both parts, with the linear vertex
// colours the shaders take (AO baked in).
static ChunkSig mesh_for_upload(VoxcafWorld *w, const Chunk &c) {
    ChunkSig s;
    VoxcafMesh *m = nullptr;
    OK(voxcaf_mesh_chunk(w, c[0], c[1], c[2], VOXCAF_MESH_GREEDY | VOXCAF_MESH_AO, &m));
    for (uint32_t which : {VOXCAF_MESH_PART_OPAQUE, VOXCAF_MESH_PART_TRANSPARENT}) {
        VoxcafMeshPart p{};
        OK(voxcaf_mesh_part(m, which, &p));
        std::vector<float> colors(4 * p.vertex_count);
        size_t written = 0;
        OK(voxcaf_mesh_linear_colors(m, which, true, colors.data(), colors.size(), &written));
        CHECK(written == colors.size());
        s.vertices += p.vertex_count;
        s.indices += p.index_count;
        for (size_t i = 0; i < 3 * p.vertex_count; ++i) s.position_sum += p.positions[i];
        for (float f : colors) {
            CHECK(f >= 0.0f && f <= 1.0f);
            s.color_sum += f;
        }
    }
    voxcaf_mesh_free(m);
    return s;
}

static std::map<Chunk, ChunkSig> mesh_every_chunk(VoxcafWorld *w) {
    uint32_t d[3];
    OK(voxcaf_world_dims(w, d, nullptr));
    std::map<Chunk, ChunkSig> all;
    for (uint32_t z = 0; z < d[2]; ++z)
        for (uint32_t y = 0; y < d[1]; ++y)
            for (uint32_t x = 0; x < d[0]; ++x) all[{x, y, z}] = mesh_for_upload(w, {x, y, z});
    return all;
}

static void w13_watch_remeshes_only_changed_chunks() {
    // An engine meshes every chunk once, then after edits re-meshes only what a watch reports.
    // With VOXCAF_WATCH_NEIGHBOURS the report includes the chunks around each change (their
    // faces and AO read its border cells): the kept meshes then equal a full re-mesh.
    World world;
    OK(voxcaf_world_new(8, 2, 8, &world.w));
    int lo[3] = {0, 0, 0}, hi[3] = {79, 4, 79};
    OK(voxcaf_world_fill_box(world.w, lo, hi, blk(2, 0), nullptr));  // ground: 64 chunks
    std::map<Chunk, ChunkSig> meshes = mesh_every_chunk(world.w);
    CHECK(meshes.size() == 128);
    Watch plain, engine;
    OK(voxcaf_watch_new(world.w, 0, &plain.w));
    OK(voxcaf_watch_new(world.w, VOXCAF_WATCH_NEIGHBOURS, &engine.w));
    const uint32_t *changed = nullptr;
    size_t n = 99;
    OK(voxcaf_watch_changes(engine.w, world.w, &changed, &n));
    CHECK(n == 0 && changed == nullptr);

    OK(voxcaf_world_set_block(world.w, 12, 6, 12, blk(35, 0)));  // (1,0,1): a stone in the air
    OK(voxcaf_world_set_block(world.w, 35, 2, 5, 0));            // (3,0,0): a hole in the ground
    OK(voxcaf_world_set_block(world.w, 5, 15, 35, blk(35, 0)));  // (0,1,3): a new chunk
    OK(voxcaf_world_set_block(world.w, 30, 5, 25, blk(35, 0)));  // (3,0,2), on its border

    // The chunks whose blocks changed, in file order (z outer, then y, x fastest).
    const uint32_t edited[4][3] = {{3, 0, 0}, {1, 0, 1}, {3, 0, 2}, {0, 1, 3}};
    OK(voxcaf_watch_changes(plain.w, world.w, &changed, &n));
    CHECK(n == 4 && std::memcmp(changed, edited, sizeof edited) == 0);
    // With their neighbours that hold ground: 23 of the 128 chunks.
    OK(voxcaf_watch_changes(engine.w, world.w, &changed, &n));
    CHECK(n == 23);
    auto zyx = [](const uint32_t *p) { return Chunk{p[2], p[1], p[0]}; };
    int remeshed = 0, needed_as_neighbour = 0;
    for (size_t i = 0; i < n; ++i) {
        const Chunk c = {changed[3 * i], changed[3 * i + 1], changed[3 * i + 2]};
        if (i > 0) CHECK(zyx(changed + 3 * (i - 1)) < zyx(changed + 3 * i));
        bool was_edited = false;
        for (const auto &e : edited) was_edited |= c == Chunk{e[0], e[1], e[2]};
        ChunkSig s = mesh_for_upload(world.w, c);
        if (!was_edited && !(s == meshes[c])) ++needed_as_neighbour;
        meshes[c] = s;
        ++remeshed;
    }
    CHECK(remeshed == 23);
    CHECK(needed_as_neighbour >= 1);  // (2,0,2): the border stone shades its ground
    const ChunkSig &cube = meshes[Chunk{0, 1, 3}];
    CHECK(cube.vertices == 24);  // the new chunk: one cube
    CHECK(meshes == mesh_every_chunk(world.w));     // nothing else is stale
    OK(voxcaf_watch_changes(engine.w, world.w, &changed, &n));
    CHECK(n == 0);
    World other;
    OK(voxcaf_world_new(8, 2, 7, &other.w));
    CHECK(voxcaf_watch_changes(engine.w, other.w, &changed, &n) == VOXCAF_ERR_MISMATCH);
    CHECK(std::strcmp(voxcaf_status_name(VOXCAF_ERR_MISMATCH), "VOXCAF_ERR_MISMATCH") == 0);
}

// ---------------------------------------------------------------- test_caf.cpp, 27 cases

static void t01_header_is_32_bytes() {
    CHECK(VOXCAF_CAF_HEADER_SIZE == 32);
    auto v = sample_file();
    VoxcafAssetInfo h;
    OK(voxcaf_validate_header(v.data(), 32, &h));
    CHECK(h.metadata_size == 24 && h.data_size == 64);
}
static void t02_header_constants() {
    CHECK(VOXCAF_CAF_MAGIC == 0xCAFECAFEu);
    CHECK(VOXCAF_CAF_VERSION_MAJOR == 1 && VOXCAF_CAF_VERSION_MINOR == 0);
    CHECK(VOXCAF_CAF_FOOTER_SIZE == 4);
}
static void t03_header_fields_little_endian() {
    std::vector<uint8_t> m = {1, 2, 3};
    Buffer b;
    OK(voxcaf_asset_write_buffer(0x0102, 0x0304, m.data(), m.size(), nullptr, 0, &b.b));
    const uint8_t *p = b.b.data;
    const uint8_t want[] = {0xFE, 0xCA, 0xFE, 0xCA, 1, 0, 0, 0, 0x02, 0x01, 0x04, 0x03};
    CHECK(std::memcmp(p, want, sizeof want) == 0);
    CHECK(rd32(p + 16) == 3 && rd32(p + 20) == 0 && rd32(p + 24) == 0 && rd32(p + 28) == 0);
}
static void t04_payload_alignment_default_is_16() {
    const uint16_t types[] = {0, 1, 2, 4, 5, 7, 8, 9};
    for (uint16_t t : types) CHECK(voxcaf_payload_alignment(t) == 16);
}
static void t05_payload_alignment_mesh_is_32() { CHECK(voxcaf_payload_alignment(VOXCAF_ASSET_MESH) == 32); }
static void t06_payload_alignment_shader_is_32() { CHECK(voxcaf_payload_alignment(VOXCAF_ASSET_SHADER) == 32); }
static void t07_total_file_size_572() {
    uint64_t n = 0;
    OK(voxcaf_total_file_size(24, 512, &n));
    CHECK(n == 572);
}
static void t08_total_file_size_empty_and_overflow() {
    uint64_t n = 0;
    OK(voxcaf_total_file_size(0, 0, &n));
    CHECK(n == 36);
    CHECK(voxcaf_total_file_size(UINT64_MAX, 1, &n) == VOXCAF_ERR_LIMIT);
}
static void t09_asset_type_codes() {
    const uint16_t all[] = {VOXCAF_ASSET_UNKNOWN, VOXCAF_ASSET_TEXTURE, VOXCAF_ASSET_AUDIO,
                            VOXCAF_ASSET_MESH,    VOXCAF_ASSET_PREFAB,  VOXCAF_ASSET_SCENE,
                            VOXCAF_ASSET_SHADER,  VOXCAF_ASSET_ANIMATION, VOXCAF_ASSET_FONT};
    for (uint16_t i = 0; i < 9; ++i) CHECK(all[i] == i);
}
static void t10_asset_types_survive_a_round_trip() {
    for (uint16_t t = 0; t <= 9; ++t) CHECK(written_info(t, 0, {}).asset_type == t);
}
static void t11_flag_bits() {
    CHECK(VOXCAF_FLAG_COMPRESSED == 1 && VOXCAF_FLAG_ENCRYPTED == 2 && VOXCAF_FLAG_SRGB == 4 &&
          VOXCAF_FLAG_MIPCHAIN == 8 && VOXCAF_FLAG_STREAMED == 16);
}
static void t12_flag_combinations() {
    uint16_t f = VOXCAF_FLAG_SRGB | VOXCAF_FLAG_MIPCHAIN;
    CHECK(f == 0x0C && (f & VOXCAF_FLAG_SRGB) && !(f & VOXCAF_FLAG_COMPRESSED));
}
static void t13_texture_metadata_is_24_bytes() { CHECK(VOXCAF_TEXTURE_METADATA_SIZE == 24 && sample_meta().size() == 24); }
static void t14_audio_metadata_is_16_bytes() {
    CHECK(VOXCAF_AUDIO_METADATA_SIZE == 16);
    std::vector<uint8_t> m;
    le32(m, 44100); m.push_back(2); m.push_back(0); m.push_back(16); m.push_back(0); le32(m, 1); le32(m, 0);
    std::vector<uint8_t> pcm = {1, 0, 2, 0};
    Buffer b;
    OK(voxcaf_asset_write_buffer(VOXCAF_ASSET_AUDIO, 0, m.data(), m.size(), pcm.data(), pcm.size(), &b.b));
    Asset a;
    OK(voxcaf_asset_from_bytes(b.b.data, b.b.len, &a.a));
    VoxcafAudioInfo au;
    OK(voxcaf_asset_audio(a.a, &au));
    CHECK(au.sample_rate == 44100 && au.channels == 2 && au.bits_per_sample == 16 && au.frames == 1 && au.len == 4);
}
static void t15_scene_metadata_is_20_bytes() { CHECK(VOXCAF_SCENE_METADATA_SIZE == 20); }
static void t16_archetype_desc_is_12_bytes() { CHECK(VOXCAF_ARCHETYPE_DESC_SIZE == 12); }
static void t17_shader_metadata_is_8_bytes() {
    CHECK(VOXCAF_SHADER_METADATA_SIZE == 8 && VOXCAF_MESH_METADATA_SIZE == 16 && sizeof(VoxcafVertex) == 48);
}
static void t18_crc_of_empty_is_zero() { CHECK(crc("", 0) == 0); }
static void t19_crc_check_value() {
    CHECK(crc("123456789", 9) == 0xCBF43926u);
    const char *fox = "The quick brown fox jumps over the lazy dog";
    CHECK(crc(fox, std::strlen(fox)) == 0x414FA339u);
}
static void t20_crc_streaming_equals_one_shot() {
    std::vector<uint8_t> d(10000);
    for (uint32_t i = 0; i < d.size(); ++i) d[i] = (uint8_t)(i * 31 % 251);
    const size_t splits[] = {0, 1, 7, 4096, 9999, 10000};
    for (size_t s : splits) {
        uint32_t head = 0, all = 0;
        OK(voxcaf_crc32(0, d.data(), s, &head));
        OK(voxcaf_crc32(head, d.data() + s, d.size() - s, &all));
        CHECK(all == crc(d.data(), d.size()));
    }
}
static void t21_crc_continue_from_zero() {
    uint32_t c = 0;
    OK(voxcaf_crc32(0, (const uint8_t *)"123456789", 9, &c));
    CHECK(c == 0xCBF43926u);
}
static void t22_writer_layout() {
    auto v = sample_file();
    auto m = sample_meta(), p = sample_payload();
    CHECK(v.size() == 32 + 24 + 64 + 4);
    CHECK(rd32(v.data() + 12) == crc(p.data(), p.size()));
    CHECK(std::memcmp(v.data() + 32, m.data(), 24) == 0);
    CHECK(std::memcmp(v.data() + 56, p.data(), 64) == 0);
    CHECK(rd32(v.data() + 120) == crc(v.data(), 120));
}
static void t23_writer_loader_round_trip_through_a_file() {
    auto m = sample_meta(), p = sample_payload();
    OK(voxcaf_asset_write_file(tmp("t.caf").c_str(), VOXCAF_ASSET_TEXTURE, 0, m.data(), m.size(), p.data(), p.size()));
    Asset a;
    OK(voxcaf_asset_open(tmp("t.caf").c_str(), &a.a));
    VoxcafAssetInfo i;
    OK(voxcaf_asset_info(a.a, &i));
    CHECK(i.asset_type == VOXCAF_ASSET_TEXTURE && i.file_size == 124 && i.data_size == 64);
    const uint8_t *data; size_t len;
    OK(voxcaf_asset_payload(a.a, &data, &len));
    CHECK(len == 64 && std::memcmp(data, p.data(), 64) == 0);
    OK(voxcaf_asset_metadata(a.a, &data, &len));
    CHECK(len == 24 && std::memcmp(data, m.data(), 24) == 0);
    VoxcafTextureInfo t;
    OK(voxcaf_asset_texture(a.a, &t));
    CHECK(t.width == 4 && t.height == 4 && t.channels == 4 && t.level_count == 1);
    VoxcafTextureLevel l;
    OK(voxcaf_asset_texture_level(a.a, 0, &l));
    CHECK(l.width == 4 && l.len == 64 && l.data[63] == 63);
    CHECK(voxcaf_asset_texture_level(a.a, 1, &l) == VOXCAF_ERR_OUT_OF_BOUNDS);
    VoxcafAudioInfo au;
    CHECK(voxcaf_asset_audio(a.a, &au) == VOXCAF_ERR_WRONG_TYPE);
}
static void t24_flags_preserved() {
    const uint16_t flags[] = {0, VOXCAF_FLAG_SRGB | VOXCAF_FLAG_MIPCHAIN, 0xFFFF, 0x8000};
    for (uint16_t f : flags) CHECK(written_info(VOXCAF_ASSET_TEXTURE, f, {'p', 'x'}).flags == f);
}
static void t25_corrupt_header_crc_rejected() {
    auto v = sample_file();
    v[12] ^= 0xFF;
    CHECK(load_status(v) == VOXCAF_ERR_MALFORMED);
    const char *e = voxcaf_last_error();  // kept through the handle's free
    CHECK(e != nullptr && (std::strstr(e, "CRC") != nullptr || std::strstr(e, "crc") != nullptr));
}
static void t26_corrupt_payload_rejected() {
    auto v = sample_file();
    v[60] ^= 0x08;
    CHECK(load_status(v) == VOXCAF_ERR_MALFORMED);
}
static void t27_corrupt_footer_rejected() {
    auto v = sample_file();
    v[v.size() - 1] ^= 0x80;
    CHECK(load_status(v) == VOXCAF_ERR_MALFORMED);
    auto w = sample_file();
    w[32 + 12] ^= 0x01;  // metadata damage only the footer CRC sees
    CHECK(load_status(w) == VOXCAF_ERR_MALFORMED);
}

// ---------------------------------------------------------------- golden files

static void golden_worlds(const fs::path &golden) {
    int n = 0;
    for (const char *sub : {"edge", "random", "worlds3d"}) {
        for (const auto &e : fs::directory_iterator(golden / "vwr" / sub)) {
            if (e.path().extension() != ".vwr") continue;
            World w;
            int s = voxcaf_world_open(e.path().string().c_str(), &w.w);
            CHECK(s == VOXCAF_OK);
            if (s != VOXCAF_OK) continue;
            // Re-encoding gives the original writer's bytes back.
            Buffer b;
            OK(voxcaf_world_to_bytes(w.w, VOXCAF_FORMAT_AUTO, &b.b));
            auto orig = read_file(e.path());
            CHECK(orig.size() == b.b.len && std::memcmp(orig.data(), b.b.data, b.b.len) == 0);
            // Every chunk meshes.
            uint32_t c[3];
            OK(voxcaf_world_dims(w.w, c, nullptr));
            VoxcafMesh *m = nullptr;
            OK(voxcaf_mesh_chunk(w.w, c[0] / 2, 0, c[2] / 2, VOXCAF_MESH_GREEDY | VOXCAF_MESH_AO, &m));
            voxcaf_mesh_free(m);
            ++n;
        }
    }
    CHECK(n >= 100);
    std::printf("golden worlds: %d loaded, re-encoded byte for byte\n", n);
}

static void golden_assets(const fs::path &golden) {
    std::ifstream f(golden / "caf" / "manifest.tsv");
    std::string line;
    std::getline(f, line);  // header
    int valid = 0, rejected = 0, views = 0;
    while (std::getline(f, line)) {
        std::vector<std::string> col;
        std::stringstream ss(line);
        std::string c;
        while (std::getline(ss, c, '\t')) col.push_back(c);
        if (col.size() < 5) continue;
        const std::string &path = col[0];
        bool expect_valid = col[3] == "valid" && path.find("overflow_size_sum") == std::string::npos;
        Asset a;
        int s = voxcaf_asset_open((golden / "caf" / path).string().c_str(), &a.a);
        CHECK((s == VOXCAF_OK) == expect_valid);
        if (s != VOXCAF_OK) {
            CHECK(s == VOXCAF_ERR_MALFORMED || s == VOXCAF_ERR_UNSUPPORTED);
            ++rejected;
            continue;
        }
        ++valid;
        VoxcafAssetInfo i;
        OK(voxcaf_asset_info(a.a, &i));
        CHECK(std::to_string(i.asset_type) == col[5]);
        CHECK(std::to_string(i.metadata_size) == col[7] && std::to_string(i.data_size) == col[8]);
        int vs = VOXCAF_OK;
        switch (i.asset_type) {
            case VOXCAF_ASSET_TEXTURE: {
                VoxcafTextureInfo t;
                vs = voxcaf_asset_texture(a.a, &t);
                if (vs == VOXCAF_OK)
                    for (uint32_t l = 0; l < t.level_count; ++l) {
                        VoxcafTextureLevel lv;
                        OK(voxcaf_asset_texture_level(a.a, l, &lv));
                        CHECK(lv.len == (size_t)lv.width * lv.height * t.channels);
                    }
                break;
            }
            case VOXCAF_ASSET_AUDIO: { VoxcafAudioInfo x; vs = voxcaf_asset_audio(a.a, &x); break; }
            case VOXCAF_ASSET_MESH: {
                VoxcafMeshInfo x;
                vs = voxcaf_asset_mesh(a.a, &x);
                if (vs == VOXCAF_OK)
                    for (size_t k = 0; k < x.index_count; ++k) CHECK(x.indices[k] < x.vertex_count);
                break;
            }
            case VOXCAF_ASSET_SHADER: { VoxcafShaderInfo x; vs = voxcaf_asset_shader(a.a, &x); break; }
            default: continue;
        }
        // A view works, or says the asset is malformed or uses a payload encoding (compressed,
        // encrypted flags) the reader does not implement; converter outputs always work.
        CHECK(vs == VOXCAF_OK || vs == VOXCAF_ERR_MALFORMED || vs == VOXCAF_ERR_UNSUPPORTED);
        if (path.rfind("generic/", 0) != 0) CHECK(vs == VOXCAF_OK);
        if (vs == VOXCAF_OK) ++views;
    }
    CHECK(valid > 50 && rejected > 20 && views > 20);
    std::printf("golden assets: %d valid, %d rejected, %d typed views read\n", valid, rejected, views);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: voxcaf_test TMPDIR [GOLDEN_DIR]\n");
        return 2;
    }
    g_tmp = argv[1];
    const std::pair<const char *, std::function<void()>> tests[] = {
        {"w01_save_load_example", w01_save_load_example},
        {"w02_default_world_is_100_cubed", w02_default_world_is_100_cubed},
        {"w03_outside_reads_air_writes_fail", w03_outside_reads_air_writes_fail},
        {"w04_palette_holds_256_entries", w04_palette_holds_256_entries},
        {"w05_palette_round_trips_through_a_file", w05_palette_round_trips_through_a_file},
        {"w06_fields_round_trip", w06_fields_round_trip},
        {"w07_move_objects_and_big_decor", w07_move_objects_and_big_decor},
        {"w08_boxes", w08_boxes},
        {"w09_formats", w09_formats},
        {"w10_mesh_one_chunk", w10_mesh_one_chunk},
        {"w11_vox_convert", w11_vox_convert},
        {"w12_null_arguments", w12_null_arguments},
        {"w13_watch_remeshes_only_changed_chunks", w13_watch_remeshes_only_changed_chunks},
        {"t01_header_is_32_bytes", t01_header_is_32_bytes},
        {"t02_header_constants", t02_header_constants},
        {"t03_header_fields_little_endian", t03_header_fields_little_endian},
        {"t04_payload_alignment_default_is_16", t04_payload_alignment_default_is_16},
        {"t05_payload_alignment_mesh_is_32", t05_payload_alignment_mesh_is_32},
        {"t06_payload_alignment_shader_is_32", t06_payload_alignment_shader_is_32},
        {"t07_total_file_size_572", t07_total_file_size_572},
        {"t08_total_file_size_empty_and_overflow", t08_total_file_size_empty_and_overflow},
        {"t09_asset_type_codes", t09_asset_type_codes},
        {"t10_asset_types_survive_a_round_trip", t10_asset_types_survive_a_round_trip},
        {"t11_flag_bits", t11_flag_bits},
        {"t12_flag_combinations", t12_flag_combinations},
        {"t13_texture_metadata_is_24_bytes", t13_texture_metadata_is_24_bytes},
        {"t14_audio_metadata_is_16_bytes", t14_audio_metadata_is_16_bytes},
        {"t15_scene_metadata_is_20_bytes", t15_scene_metadata_is_20_bytes},
        {"t16_archetype_desc_is_12_bytes", t16_archetype_desc_is_12_bytes},
        {"t17_shader_metadata_is_8_bytes", t17_shader_metadata_is_8_bytes},
        {"t18_crc_of_empty_is_zero", t18_crc_of_empty_is_zero},
        {"t19_crc_check_value", t19_crc_check_value},
        {"t20_crc_streaming_equals_one_shot", t20_crc_streaming_equals_one_shot},
        {"t21_crc_continue_from_zero", t21_crc_continue_from_zero},
        {"t22_writer_layout", t22_writer_layout},
        {"t23_writer_loader_round_trip_through_a_file", t23_writer_loader_round_trip_through_a_file},
        {"t24_flags_preserved", t24_flags_preserved},
        {"t25_corrupt_header_crc_rejected", t25_corrupt_header_crc_rejected},
        {"t26_corrupt_payload_rejected", t26_corrupt_payload_rejected},
        {"t27_corrupt_footer_rejected", t27_corrupt_footer_rejected},
    };
    int n = 0;
    for (const auto &t : tests) {
        g_test = t.first;
        t.second();
        ++n;
    }
    if (argc > 2) {
        g_test = "golden_worlds";
        golden_worlds(argv[2]);
        g_test = "golden_assets";
        golden_assets(argv[2]);
    }
    std::printf("%d scenarios, %d checks, %d failures\n", n, g_checks, g_failures);
    return g_failures == 0 ? 0 : 1;
}
