/*
 * Keypress-to-pixels probe for scripts/bench-latency.
 *
 *   latency-probe WINDOW SAMPLES           the echo's band, fine-grained
 *   latency-probe --whole WINDOW SAMPLES   the whole window, back to back
 *
 * Presses keys into WINDOW with XTest (what xdotool does) and polls the
 * window's pixels with XGetImage until the first one changes; prints one
 * latency in microseconds per line. Keys alternate between "a" and
 * BackSpace so every echo lands in the same cells: the first press finds
 * that band of pixel rows, later samples poll only the band, which keeps a
 * poll well under a tenth of a millisecond.
 *
 * --whole polls the way shared/bench/keylat.c does: the whole window, one
 * poll straight after another. A poll then takes milliseconds (the server
 * copies and sends every pixel, the probe reads them all), so the figure
 * is mostly whole polls. Each line adds the number of polls and how long
 * the last one took, in microseconds: "LATENCY POLLS LAST_POLL".
 *
 * Build: cc -O2 -o latency-probe latency-probe.c -lX11 -lXtst
 */
#define _POSIX_C_SOURCE 200809L
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/extensions/XTest.h>
#include <X11/keysym.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A sample that shows nothing for this long is reported as lost. */
#define SAMPLE_TIMEOUT_US 2000000L
/* Idle gap between samples: random in [GAP_MIN, GAP_MIN + GAP_SPREAD) ms,
 * so presses fall at every phase of a terminal's frame clock. */
#define GAP_MIN_MS 40
#define GAP_SPREAD_MS 40
/* Pause between polls: the X server and the terminal share the CPU with
 * this probe, and a probe that never sleeps would delay the very wake-ups
 * it measures. */
#define POLL_PAUSE_US 100

static long now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* The pixels of rows y0..y1 of the window, as one byte buffer. */
static size_t grab(Display *d, Window w, int width, int y0, int y1, char **out) {
  XImage *img = XGetImage(d, w, 0, y0, width, y1 - y0, AllPlanes, ZPixmap);
  if (!img) return 0;
  size_t len = (size_t)img->bytes_per_line * img->height;
  *out = realloc(*out, len);
  memcpy(*out, img->data, len);
  XDestroyImage(img);
  return len;
}

/* Wait until two grabs 50 ms apart agree (the terminal has settled). */
static size_t settle(Display *d, Window w, int width, int y0, int y1, char **base) {
  char *again = NULL;
  size_t len = grab(d, w, width, y0, y1, base);
  for (int i = 0; i < 40; i++) {
    sleep_ms(50);
    size_t len2 = grab(d, w, width, y0, y1, &again);
    if (len2 == len && memcmp(*base, again, len) == 0) break;
    len = grab(d, w, width, y0, y1, base);
  }
  free(again);
  return len;
}

static void tap(Display *d, KeyCode key, int press) {
  XTestFakeKeyEvent(d, key, press, CurrentTime);
  XFlush(d);
}

/* How a sample's polling went: polls made, and how long the last took. */
struct polls {
  int count;
  long last_us;
};

/* Press `key` and time the first change of rows y0..y1; -1 when lost.
 * With `band` set, also returns the changed rows' extent there. With
 * `polls` set, polls back to back (no pause) and counts them. */
static long sample(Display *d, Window w, int width, int y0, int y1, KeyCode key,
                   int *band0, int *band1, struct polls *polls) {
  char *base = NULL, *cur = NULL;
  size_t len = settle(d, w, width, y0, y1, &base);
  long t0 = now_us(), t1 = -1;
  tap(d, key, True);
  while (now_us() - t0 < SAMPLE_TIMEOUT_US) {
    long started = now_us();
    size_t len2 = grab(d, w, width, y0, y1, &cur);
    if (polls) polls->count++;
    if (len2 == len && len && memcmp(base, cur, len) != 0) {
      t1 = now_us();
      if (polls) polls->last_us = t1 - started;
      break;
    }
    if (!polls) {
      struct timespec pause = {0, POLL_PAUSE_US * 1000L};
      nanosleep(&pause, NULL);
    }
  }
  tap(d, key, False);
  if (t1 >= 0 && band0) {
    /* Wait for the whole echo, then find which rows it touched. */
    char *after = NULL;
    settle(d, w, width, y0, y1, &after);
    size_t pitch = len / (size_t)(y1 - y0);
    int lo = -1, hi = -1;
    for (int y = 0; y < y1 - y0; y++) {
      if (memcmp(base + y * pitch, after + y * pitch, pitch) != 0) {
        if (lo < 0) lo = y;
        hi = y;
      }
    }
    free(after);
    *band0 = lo < 0 ? y0 : y0 + lo;
    *band1 = hi < 0 ? y1 : y0 + hi + 1;
  }
  free(base);
  free(cur);
  return t1 < 0 ? -1 : t1 - t0;
}

int main(int argc, char **argv) {
  int whole = argc == 4 && strcmp(argv[1], "--whole") == 0;
  if (argc != 3 && !whole) {
    fprintf(stderr, "usage: %s [--whole] WINDOW SAMPLES\n", argv[0]);
    return 2;
  }
  Window w = (Window)strtoul(argv[argc - 2], NULL, 0);
  int samples = atoi(argv[argc - 1]);
  Display *d = XOpenDisplay(NULL);
  if (!d) {
    fprintf(stderr, "latency-probe: cannot open display\n");
    return 1;
  }
  int ev, er, maj, min;
  if (!XTestQueryExtension(d, &ev, &er, &maj, &min)) {
    fprintf(stderr, "latency-probe: the X server has no XTest\n");
    return 1;
  }
  XWindowAttributes attr;
  if (!XGetWindowAttributes(d, w, &attr)) {
    fprintf(stderr, "latency-probe: no window %s\n", argv[argc - 2]);
    return 1;
  }
  KeyCode letter = XKeysymToKeycode(d, XK_a);
  KeyCode erase = XKeysymToKeycode(d, XK_BackSpace);
  XSetInputFocus(d, w, RevertToPointerRoot, CurrentTime);
  XSync(d, False);
  srand((unsigned)now_us());

  /* Warm-up press over the whole window: finds the band the echo uses. */
  int b0 = 0, b1 = attr.height;
  if (sample(d, w, attr.width, 0, attr.height, letter, &b0, &b1, NULL) < 0) {
    fprintf(stderr, "latency-probe: the window never changed after a key press\n");
    return 1;
  }
  sample(d, w, attr.width, b0, b1, erase, NULL, NULL, NULL);
  if (whole) {
    b0 = 0;
    b1 = attr.height;
  }
  for (int i = 0; i < samples; i++) {
    sleep_ms(GAP_MIN_MS + rand() % GAP_SPREAD_MS);
    struct polls polls = {0, 0};
    long us = sample(d, w, attr.width, b0, b1, i % 2 ? erase : letter, NULL, NULL,
                     whole ? &polls : NULL);
    if (us < 0)
      printf("lost\n");
    else if (whole)
      printf("%ld %d %ld\n", us, polls.count, polls.last_us);
    else
      printf("%ld\n", us);
    fflush(stdout);
  }
  XCloseDisplay(d);
  return 0;
}
