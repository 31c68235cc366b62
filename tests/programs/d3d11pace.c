/* d3d11pace: a small Direct3D 11 program for testing vkpace's layer under Wine and DXVK.
 *
 * A window, a D3D11 device and a flip-model swap chain (DXGI_SWAP_EFFECT_FLIP_DISCARD, two
 * buffers), a clear per frame and Present(1, 0): what a game's loop does, with nothing of its
 * own pacing. It writes one line per frame to stdout, "frame N start_us", the time each frame
 * began by QueryPerformanceCounter (microseconds), so a test judges the intervals the program
 * itself saw. Arguments: the number of frames (default 120), and `exit-process` to end with
 * ExitProcess while the device and swap chain are alive (as many games do) instead of
 * releasing them first. Exit status 0 on success; 2 to 5 name the step that failed.
 *
 * Build: x86_64-w64-mingw32-gcc -O2 -o d3d11pace.exe d3d11pace.c -ld3d11 -ldxgi -luuid -mwindows
 */
#define COBJMACROS
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <d3d11.h>
#include <dxgi1_2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static LRESULT CALLBACK window_proc(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp)
{
    if (msg == WM_CLOSE) {
        PostQuitMessage(0);
        return 0;
    }
    return DefWindowProcA(hwnd, msg, wp, lp);
}

static HWND make_window(HINSTANCE instance)
{
    WNDCLASSA wc;
    memset(&wc, 0, sizeof(wc));
    wc.lpfnWndProc = window_proc;
    wc.hInstance = instance;
    wc.lpszClassName = "d3d11pace";
    RegisterClassA(&wc);
    RECT r = {0, 0, 256, 144};
    AdjustWindowRect(&r, WS_OVERLAPPEDWINDOW, FALSE);
    HWND hwnd = CreateWindowA("d3d11pace", "d3d11pace", WS_OVERLAPPEDWINDOW | WS_VISIBLE,
                              0, 0, r.right - r.left, r.bottom - r.top, NULL, NULL, instance,
                              NULL);
    return hwnd;
}

/* Drains the window's messages; returns 0 once it was closed. */
static int pump(void)
{
    MSG msg;
    while (PeekMessageA(&msg, NULL, 0, 0, PM_REMOVE)) {
        if (msg.message == WM_QUIT)
            return 0;
        TranslateMessage(&msg);
        DispatchMessageA(&msg);
    }
    return 1;
}

int main(int argc, char **argv)
{
    int frames = argc > 1 ? atoi(argv[1]) : 120;
    int exit_process = argc > 2 && strcmp(argv[2], "exit-process") == 0;
    HWND hwnd = make_window(GetModuleHandleA(NULL));
    if (!hwnd)
        return 2;

    DXGI_SWAP_CHAIN_DESC desc;
    memset(&desc, 0, sizeof(desc));
    desc.BufferDesc.Width = 256;
    desc.BufferDesc.Height = 144;
    desc.BufferDesc.Format = DXGI_FORMAT_B8G8R8A8_UNORM;
    desc.SampleDesc.Count = 1;
    desc.BufferUsage = DXGI_USAGE_RENDER_TARGET_OUTPUT;
    desc.BufferCount = 2;
    desc.OutputWindow = hwnd;
    desc.Windowed = TRUE;
    desc.SwapEffect = DXGI_SWAP_EFFECT_FLIP_DISCARD;

    IDXGISwapChain *swap = NULL;
    ID3D11Device *device = NULL;
    ID3D11DeviceContext *context = NULL;
    D3D_FEATURE_LEVEL level = D3D_FEATURE_LEVEL_11_0;
    HRESULT hr = D3D11CreateDeviceAndSwapChain(NULL, D3D_DRIVER_TYPE_HARDWARE, NULL, 0, &level,
                                               1, D3D11_SDK_VERSION, &desc, &swap, &device,
                                               NULL, &context);
    if (FAILED(hr)) {
        fprintf(stderr, "D3D11CreateDeviceAndSwapChain: 0x%08lx\n", (unsigned long)hr);
        return 3;
    }
    ID3D11Texture2D *back = NULL;
    ID3D11RenderTargetView *view = NULL;
    if (FAILED(IDXGISwapChain_GetBuffer(swap, 0, &IID_ID3D11Texture2D, (void **)&back)))
        return 4;
    if (FAILED(ID3D11Device_CreateRenderTargetView(device, (ID3D11Resource *)back, NULL, &view)))
        return 4;
    ID3D11Texture2D_Release(back);

    LARGE_INTEGER freq, now;
    QueryPerformanceFrequency(&freq);
    for (int i = 0; i < frames && pump(); i++) {
        QueryPerformanceCounter(&now);
        printf("frame %d %lld\n", i, (long long)(now.QuadPart * 1000000 / freq.QuadPart));
        float color[4] = {(i % 60) / 60.0f, 0.2f, 0.4f, 1.0f};
        /* Flip model unbinds the back buffer at each present: bind it again every frame. */
        ID3D11DeviceContext_OMSetRenderTargets(context, 1, &view, NULL);
        ID3D11DeviceContext_ClearRenderTargetView(context, view, color);
        if (FAILED(IDXGISwapChain_Present(swap, 1, 0)))
            return 5;
    }
    fflush(stdout);
    if (exit_process)
        ExitProcess(0);
    ID3D11RenderTargetView_Release(view);
    ID3D11DeviceContext_Release(context);
    IDXGISwapChain_Release(swap);
    ID3D11Device_Release(device);
    DestroyWindow(hwnd);
    return 0;
}
