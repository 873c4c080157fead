//! A third-party reader's panic caught as an error.
//!
//! Some readers the importers use (gltf, naga, dot_vox, image decoders, mikktspace) panic on
//! crafted input instead of returning an error. The importers call them through [`catch`],
//! which turns the panic into an `Err` with its message. Catching is not enough for a command
//! line tool: the default panic hook has already printed `thread 'main' panicked at …` (and,
//! with `RUST_BACKTRACE`, a backtrace) by then, which reads as a crash just before the tool's
//! own error. An application calls [`quiet_hook`] once to keep those messages off standard
//! error: panics inside [`catch`] are then silent, every other panic goes to the hook that was
//! installed before. Libraries never install it themselves, so a fuzzer's hook still sees
//! every panic.

use std::any::Any;
use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// How many [`catch`] calls the current thread is inside.
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// Leaves one level of [`catch`] when dropped, also while unwinding.
struct Inside;

impl Inside {
    fn enter() -> Inside {
        DEPTH.with(|d| d.set(d.get() + 1));
        Inside
    }
}

impl Drop for Inside {
    fn drop(&mut self) {
        DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
    }
}

/// Runs `f`; a panic inside it is returned as `Err` with the panic's message (`"(no
/// message)"` when the payload is not text).
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    let _inside = Inside::enter();
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| message(payload.as_ref()))
}

/// Whether the current thread is running inside [`catch`].
pub fn inside() -> bool {
    DEPTH.with(|d| d.get() > 0)
}

/// The text of a panic payload.
fn message(payload: &(dyn Any + Send)) -> String {
    match (
        payload.downcast_ref::<&str>(),
        payload.downcast_ref::<String>(),
    ) {
        (Some(s), _) => (*s).to_string(),
        (_, Some(s)) => s.clone(),
        _ => "(no message)".to_string(),
    }
}

/// Installs, once per process, a panic hook that prints nothing for a panic inside [`catch`]
/// and hands every other panic to the hook installed before it (the default one prints it as
/// usual).
pub fn quiet_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !inside() {
                previous(info);
            }
        }));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_is_an_error_with_its_message_and_the_depth_is_restored() {
        quiet_hook();
        assert_eq!(catch(|| 7), Ok(7));
        assert!(!inside());
        let e = catch(|| -> u8 { panic!("bad index {}", 3) }).unwrap_err();
        assert_eq!(e, "bad index 3");
        assert!(!inside());
        let nested = catch(|| {
            assert!(inside());
            catch(|| std::panic::panic_any(5u8)).unwrap_err()
        });
        assert_eq!(nested.as_deref(), Ok("(no message)"));
        assert!(!inside());
    }
}
