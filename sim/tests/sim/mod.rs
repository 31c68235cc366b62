//! A deterministic simulator of a GPU queue and a presentation engine for the core's tests.
#![allow(dead_code)]

pub mod app;
