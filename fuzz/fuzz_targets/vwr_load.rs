//! Any byte string: the world loader returns Ok or a typed error, never panics; whatever loads
//! re-saves to bytes that load to the same world, and its dump never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok((world, _oddities)) = vwr::read_world_checked(data) {
        let bytes = world.to_bytes();
        let back = vwr::World::from_bytes(&bytes).expect("a re-saved world must load");
        assert!(back == world);
        assert_eq!(back.to_bytes(), bytes);
        let _ = vwr::dump::dump(&back);
        let _ = world.move_objects();
        let _ = world.big_decors();
    }
});
