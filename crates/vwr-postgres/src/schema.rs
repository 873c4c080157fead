//! The schema of vwr-postgres.md §2 and its versions (§4).
