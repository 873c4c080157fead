//! vwr
