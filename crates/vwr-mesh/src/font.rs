//! A tiny built-in 3×5 bitmap font for labels in preview images.

/// Glyph rows (3 bits each, MSB = left), 5 rows per glyph.
fn glyph(c: char) -> [u8; 5] {
    match c.to_ascii_uppercase() {
        '0' => [7, 5, 5, 5, 7],
        '1' => [2, 6, 2, 2, 7],
        '2' => [7, 1, 7, 4, 7],
        '3' => [7, 1, 3, 1, 7],
        '4' => [5, 5, 7, 1, 1],
        '5' => [7, 4, 7, 1, 7],
        '6' => [7, 4, 7, 5, 7],
        '7' => [7, 1, 2, 2, 2],
        '8' => [7, 5, 7, 5, 7],
        '9' => [7, 5, 7, 1, 7],
        'A' => [2, 5, 7, 5, 5],
        'B' => [6, 5, 6, 5, 6],
        'C' => [3, 4, 4, 4, 3],
        'D' => [6, 5, 5, 5, 6],
        'E' => [7, 4, 6, 4, 7],
        'F' => [7, 4, 6, 4, 4],
        'G' => [3, 4, 5, 5, 3],
        'H' => [5, 5, 7, 5, 5],
        'I' => [7, 2, 2, 2, 7],
        'J' => [1, 1, 1, 5, 2],
        'K' => [5, 5, 6, 5, 5],
        'L' => [4, 4, 4, 4, 7],
        'M' => [5, 7, 7, 5, 5],
        'N' => [6, 5, 5, 5, 5],
        'O' => [2, 5, 5, 5, 2],
        'P' => [6, 5, 6, 4, 4],
        'Q' => [2, 5, 5, 6, 3],
        'R' => [6, 5, 6, 5, 5],
        'S' => [3, 4, 2, 1, 6],
        'T' => [7, 2, 2, 2, 2],
        'U' => [5, 5, 5, 5, 7],
        'V' => [5, 5, 5, 5, 2],
        'W' => [5, 5, 7, 7, 5],
        'X' => [5, 5, 2, 5, 5],
        'Y' => [5, 5, 2, 2, 2],
        'Z' => [7, 1, 2, 4, 7],
        '=' => [0, 7, 0, 7, 0],
        '-' => [0, 0, 7, 0, 0],
        ':' => [0, 2, 0, 2, 0],
        '.' => [0, 0, 0, 0, 2],
        ',' => [0, 0, 0, 2, 4],
        '/' => [1, 1, 2, 4, 4],
        '(' => [1, 2, 2, 2, 1],
        ')' => [4, 2, 2, 2, 4],
        '+' => [0, 2, 7, 2, 0],
        '#' => [5, 7, 5, 7, 5],
        '%' => [5, 1, 2, 4, 5],
        '>' => [4, 2, 1, 2, 4],
        '<' => [1, 2, 4, 2, 1],
        _ => [0, 0, 0, 0, 0],
    }
}

/// Width in pixels of `text` drawn at `scale`.
pub fn text_width(text: &str, scale: u32) -> u32 {
    (text.chars().count() as u32 * 4).saturating_sub(1) * scale
}

/// Height in pixels of one line at `scale`.
pub fn text_height(scale: u32) -> u32 {
    5 * scale
}

/// Draws `text` with its top-left corner at (x, y); pixels outside the image are skipped.
pub fn draw_text(
    img: &mut image::RgbaImage,
    x: i32,
    y: i32,
    text: &str,
    scale: u32,
    color: [u8; 4],
) {
    let (w, h) = (img.width() as i32, img.height() as i32);
    let s = scale as i32;
    for (i, c) in text.chars().enumerate() {
        let g = glyph(c);
        let gx = x + i as i32 * 4 * s;
        for (row, bits) in g.iter().enumerate() {
            for col in 0..3 {
                if bits >> (2 - col) & 1 == 0 {
                    continue;
                }
                for dy in 0..s {
                    for dx in 0..s {
                        let px = gx + col * s + dx;
                        let py = y + row as i32 * s + dy;
                        if px >= 0 && py >= 0 && px < w && py < h {
                            img.put_pixel(px as u32, py as u32, image::Rgba(color));
                        }
                    }
                }
            }
        }
    }
}
