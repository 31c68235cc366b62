/*
 * Preloaded into a Vulkan program (LD_PRELOAD) to end its main thread the way Wine ends a
 * program's threads at ExitProcess: a SIGQUIT whose handler calls pthread_exit (a forced unwind
 * from wherever the thread was). Once the file THREAD_END_AFTER_FILE names exists (the pacing
 * layer's frame log, made when it starts pacing), or at once without it, and then
 * THREAD_END_DELAY_US later, a thread of the shim sends the signal, prints "thread-end shim:
 * SIGQUIT sent", and waits for the main thread to be gone; then the process ends with status 42
 * (the thread ended cleanly), 43 (it was still there after 5 s) or 44 (the file never came).
 * A layer that lets the unwind meet a catch_unwind, or a frame whose unwind table does not list
 * the interrupted call, aborts the process instead (SIGABRT).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static pid_t main_tid;

static void end_thread(int signal)
{
    (void)signal;
    pthread_exit(NULL);
}

/* Whether the main thread still runs: a thread group's leader that ended stays listed, as a
 * zombie ('Z'), until the whole process ends. */
static int main_thread_alive(void)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)main_tid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    line[n] = 0;
    const char *end = strrchr(line, ')');
    return end && end[1] == ' ' && end[2] != 'Z' && end[2] != 'X';
}

static void *ender(void *arg)
{
    (void)arg;
    const char *after = getenv("THREAD_END_AFTER_FILE");
    for (int i = 0; after && access(after, F_OK) != 0; i++) {
        if (i == 3000) {
            fprintf(stderr, "thread-end shim: %s never came\n", after);
            _exit(44);
        }
        usleep(10000);
    }
    const char *delay = getenv("THREAD_END_DELAY_US");
    usleep(delay ? (useconds_t)atol(delay) : 1500000);
    syscall(SYS_tgkill, getpid(), main_tid, SIGQUIT);
    fprintf(stderr, "thread-end shim: SIGQUIT sent\n");
    for (int i = 0; i < 500 && main_thread_alive(); i++)
        usleep(10000);
    int ended = !main_thread_alive();
    fprintf(stderr, "thread-end shim: main thread %s\n", ended ? "ended" : "still running");
    _exit(ended ? 42 : 43);
    return NULL;
}

__attribute__((constructor)) static void start(void)
{
    struct sigaction action = {0};
    action.sa_handler = end_thread;
    sigemptyset(&action.sa_mask);
    sigaction(SIGQUIT, &action, NULL);
    main_tid = (pid_t)syscall(SYS_gettid);
    pthread_t thread;
    pthread_create(&thread, NULL, ender, NULL);
    pthread_detach(thread);
}
