//! The demo package's integration tests, one executable (linked once): one module per group of
//! tests, beside the support modules they share. `scripts/test-list` makes a row of each test
//! module and `scripts/test-bins` runs each row in a process of its own (`--exact` with the
//! module's tests), since some modules set the process's environment for the virtual display
//! layer once, before their first Vulkan instance.

// Support shared by the test modules.
mod common;
mod demo_process;
mod object_bounds;
mod pacing_layer_support;
mod present_pacer_app;
mod run_length;
mod vdisplay_support;
mod weston;
mod wine_support;

// The tests, one module per group (named as the executables they once were).
mod api_sequences;
mod batches;
mod color_spaces;
mod demo_headless;
mod demo_virtual_display;
mod display_robustness;
mod examples;
mod headless;
mod layer_chain_orders;
mod not_ready;
mod own_swapchain;
mod pacing_layer_apps;
mod pacing_layer_own_ids;
mod pacing_layer_thread_end;
mod present_pacer_smoke;
mod present_pacer_vdisplay;
mod present_timing;
mod present_wait2;
mod renderer_submits;
mod tokens;
mod vdisplay_matrix;
mod vdisplay_matrix_full;
mod wayland_window;
mod wine_dxvk;
mod x11_live;
mod x11_window;
