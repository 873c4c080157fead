//! Unit tests of the registry (names, kinds, TOML overrides).

use super::*;

#[test]
fn default_kinds() {
    let r = Registry::default();
    assert_eq!(r.kind(0), RenderKind::Invisible);
    assert_eq!(r.kind(35), RenderKind::Opaque);
    assert_eq!(r.kind(92), RenderKind::Transparent);
    assert_eq!(r.kind(378), RenderKind::Special(Shape::GroundPlate));
    assert_eq!(r.kind(200), RenderKind::Special(Shape::Grate));
    assert_eq!(r.kind(4000), RenderKind::Opaque);
    assert_eq!(r.name(261), "BrickWall");
    assert_eq!(r.name(4000), "tile4000");
    assert_eq!(r.color(4000), hashed_color(4000));
    assert_eq!(r.class_of_type(92), CLASS_TRANSPARENT);
}

#[test]
fn default_collision() {
    let r = Registry::default();
    assert_eq!(r.collision(0), Collision::default());
    assert!(r.collision(35).solid);
    assert!(r.collision(4000).solid);
    assert!(r.collision(30).solid, "glass");
    assert!(!r.collision(92).solid && r.collision(92).liquid, "water");
    let lava = r.collision(68);
    assert!(!lava.solid && lava.liquid && lava.trigger == Trigger::Hazard);
    let spike = r.collision(373);
    assert!(spike.solid && spike.trigger == Trigger::Hazard);
    assert!(!r.collision(110).solid, "plates are passable");
    assert!(!r.collision(53).solid, "billboards are passable");
    assert!(r.collision(200).solid, "grates are solid");
    assert_eq!(r.collision(330).trigger, Trigger::Teleport);
    for t in Trigger::ALL {
        assert_eq!(Trigger::parse(t.as_str()), Some(t));
        assert_eq!(Trigger::from_code(t.code()), Some(t));
    }
    assert_eq!(Trigger::from_code(9), None);
}

#[test]
fn toml_collision_overrides() {
    let mut r = Registry::default();
    r.apply_toml(
        "[[block]]\nname = \"Water\"\nsolid = true\n\
         [[block]]\nid = 35\ntrigger = \"goal\"\n\
         [[block]]\nid = 373\nkind = \"plate\"\n\
         [[block]]\nid = 3\nliquid = true\ntrigger = \"Hazard\"\n",
    )
    .unwrap();
    assert!(r.collision(92).solid && r.collision(92).liquid);
    assert_eq!(r.collision(35).trigger, Trigger::Goal);
    assert!(r.collision(35).solid);
    // A new kind resets solidity to the kind's default but keeps the trigger.
    assert!(!r.collision(373).solid);
    assert_eq!(r.collision(373).trigger, Trigger::Hazard);
    assert!(!r.collision(3).solid && r.collision(3).liquid);
    assert_eq!(r.collision(3).trigger, Trigger::Hazard);
    for bad in [
        "[[block]]\nid = 3\ntrigger = \"explode\"\n",
        "[[block]]\nid = 3\nsolid = \"yes\"\n",
    ] {
        let r = refused(bad);
        assert!(r.collision(3).solid, "a refused file changes nothing");
    }
}

/// A default registry after `toml` was applied, checked to be refused as invalid.
fn refused(toml: &str) -> Registry {
    let mut r = Registry::default();
    assert!(
        matches!(r.apply_toml(toml), Err(RegistryError::Invalid { .. })),
        "{toml:?}"
    );
    r
}

#[test]
fn hashed_colors_differ_and_are_stable() {
    assert_eq!(hashed_color(500), hashed_color(500));
    assert_ne!(hashed_color(500), hashed_color(501));
}

#[test]
fn names_unique_and_resolvable() {
    let r = Registry::default();
    for t in 0..TYPE_COUNT as u16 {
        assert_eq!(r.id_by_name(r.name(t)), Some(t), "type {t}");
    }
    assert_eq!(r.id_by_name("4096"), None);
    assert_eq!(r.id_by_name("tile4096"), None);
    assert_eq!(r.id_by_name(""), None);
}

#[test]
fn toml_overrides_and_errors() {
    let mut r = Registry::default();
    r.apply_toml(
        "[[block]]\nname = \"Water\"\nkind = \"opaque\"\ncolor = \"#102030\"\n\
         [[block]]\nid = 1234\nname = \"Marble\"\nkind = \"ground_plate\"\n",
    )
    .unwrap();
    assert_eq!(r.kind(92), RenderKind::Opaque);
    assert_eq!(r.color(92), [16, 32, 48, 255]);
    assert_eq!(r.id_by_name("marble"), Some(1234));
    assert_eq!(r.kind(1234), RenderKind::Special(Shape::GroundPlate));
    assert_eq!(r.class_of_type(92), CLASS_OPAQUE);

    for bad in [
        "[[block]]\nid = 5000\n",
        "[[block]]\nname = \"Nope\"\n",
        "[[block]]\nid = 3\nkind = \"wobbly\"\n",
        "[[block]]\nid = 3\ncolor = \"#12\"\n",
        "[[block]]\nid = 3\ncolor = [1, 2, 300]\n",
        "[[block]]\nid = 3\nname = \"RockPile\"\n",
        "[[block]]\nkind = \"opaque\"\n",
        "[[block]]\nid = 3\nwhat = 1\n",
        "not toml at all [",
    ] {
        refused(bad);
    }
}
