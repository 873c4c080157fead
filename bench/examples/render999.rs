use vwr_mesh::*;
fn main() {
    let w = voxcaf_bench::world999().unwrap();
    let reg = Registry::default();
    let t = std::time::Instant::now();
    for (view, name) in [
        (View::Iso, "iso"),
        (View::Front, "front"),
        (View::Top, "top"),
    ] {
        let r = render_world(
            &w,
            &reg,
            &RenderOptions {
                view,
                width: 1200,
                height: 800,
                ..Default::default()
            },
        )
        .unwrap();
        println!(
            "{name}: coverage {:.2} tris {} markers {}",
            r.coverage(),
            r.triangles,
            r.markers
        );
        render::save_png(
            &r.image,
            std::path::Path::new(&format!("/tmp/r999-{name}.png")),
        )
        .unwrap();
    }
    let r = render_layer(&w, &reg, 1, 800).unwrap();
    render::save_png(&r.image, std::path::Path::new("/tmp/r999-layer1.png")).unwrap();
    let r = render_chunks(&w);
    render::save_png(&r.image, std::path::Path::new("/tmp/r999-chunks.png")).unwrap();
    let h = voxcaf_bench::hilly_terrain();
    let r = render_world(
        &h,
        &reg,
        &RenderOptions {
            width: 1200,
            height: 800,
            ..Default::default()
        },
    )
    .unwrap();
    render::save_png(&r.image, std::path::Path::new("/tmp/hilly-iso.png")).unwrap();
    println!("{:?}", t.elapsed());
}
