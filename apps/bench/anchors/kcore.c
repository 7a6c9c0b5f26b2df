/* CPU anchors for k-core (core numbers of an undirected graph) on a Weft .wcsr file:
 * Batagelj-Zaversnik's O(m) bucket algorithm on one core, and parallel peeling (Kabir and Madduri's PKC:
 * level by level, vertices whose degree falls to the level join it) with OpenMP on every core.
 * Self-loops are ignored, as Weft's coreNumber ignores them; the graph's arcs are taken as given.
 * Usage: kcore FILE.wcsr TRIALS  ->  one line: bz_ms pkc_ms max_core core_sum (medians of TRIALS runs). */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static uint32_t n;
static uint32_t *off, *tgt;

static uint32_t degree_of(uint32_t v) {
  uint32_t d = 0;
  for (uint32_t k = off[v]; k < off[v + 1]; k++) d += tgt[k] != v;
  return d;
}

static void bz(uint32_t *core) {
  uint32_t md = 0;
  for (uint32_t v = 0; v < n; v++) {
    core[v] = degree_of(v);
    if (core[v] > md) md = core[v];
  }
  uint32_t *bin = calloc(md + 2, 4), *pos = malloc(4 * (size_t)n), *vert = malloc(4 * (size_t)n);
  for (uint32_t v = 0; v < n; v++) bin[core[v]]++;
  uint32_t start = 0;
  for (uint32_t d = 0; d <= md; d++) {
    uint32_t c = bin[d];
    bin[d] = start;
    start += c;
  }
  for (uint32_t v = 0; v < n; v++) {
    pos[v] = bin[core[v]];
    vert[pos[v]] = v;
    bin[core[v]]++;
  }
  for (uint32_t d = md; d > 0; d--) bin[d] = bin[d - 1];
  bin[0] = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t v = vert[i];
    for (uint32_t k = off[v]; k < off[v + 1]; k++) {
      uint32_t u = tgt[k];
      if (u == v || core[u] <= core[v]) continue;
      uint32_t du = core[u], pu = pos[u], pw = bin[du], w = vert[pw];
      if (u != w) {
        pos[u] = pw;
        vert[pu] = w;
        pos[w] = pu;
        vert[pw] = u;
      }
      bin[du]++;
      core[u]--;
    }
  }
  free(bin);
  free(pos);
  free(vert);
}

static void pkc(uint32_t *deg, uint32_t *buf) {
#pragma omp parallel for schedule(static)
  for (uint32_t v = 0; v < n; v++) deg[v] = degree_of(v);
  uint64_t done = 0;
  for (uint32_t k = 0; done < n; k++) {
    uint64_t tail = 0;
#pragma omp parallel for schedule(static)
    for (uint32_t v = 0; v < n; v++) {
      if (deg[v] == k) buf[__atomic_fetch_add(&tail, 1, __ATOMIC_RELAXED)] = v;
    }
    uint64_t head = 0;
    while (head < tail) {
      uint64_t first = head, last = tail;
      head = last;
#pragma omp parallel for schedule(dynamic, 64)
      for (uint64_t i = first; i < last; i++) {
        uint32_t v = buf[i];
        for (uint32_t e = off[v]; e < off[v + 1]; e++) {
          uint32_t u = tgt[e];
          if (u == v || __atomic_load_n(&deg[u], __ATOMIC_RELAXED) <= k) continue;
          uint32_t was = __atomic_fetch_sub(&deg[u], 1, __ATOMIC_RELAXED);
          if (was == k + 1) {
            buf[__atomic_fetch_add(&tail, 1, __ATOMIC_RELAXED)] = u;
          } else if (was <= k) {
            __atomic_fetch_add(&deg[u], 1, __ATOMIC_RELAXED);
          }
        }
      }
    }
    done += tail;
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: kcore FILE.wcsr [TRIALS]\n");
    return 2;
  }
  int trials = argc > 2 ? atoi(argv[2]) : 3;
  FILE *f = fopen(argv[1], "rb");
  if (!f) {
    perror(argv[1]);
    return 2;
  }
  char magic[8];
  uint32_t version_flags[2];
  uint64_t nm[2];
  if (fread(magic, 1, 8, f) != 8 || memcmp(magic, "WEFTCSR", 8) != 0 || fread(version_flags, 4, 2, f) != 2 ||
      fread(nm, 8, 2, f) != 2) {
    fprintf(stderr, "%s: not a .wcsr file\n", argv[1]);
    return 2;
  }
  n = (uint32_t)nm[0];
  uint64_t m = nm[1];
  off = malloc(4 * ((size_t)n + 1));
  tgt = malloc(4 * (size_t)m + 4);
  if (fread(off, 4, (size_t)n + 1, f) != (size_t)n + 1 || fread(tgt, 4, m, f) != m) {
    fprintf(stderr, "%s: truncated\n", argv[1]);
    return 2;
  }
  fclose(f);
  uint32_t *core = malloc(4 * (size_t)n), *deg = malloc(4 * (size_t)n), *buf = malloc(4 * (size_t)n);
  double *bz_ms = malloc(sizeof(double) * trials), *pkc_ms = malloc(sizeof(double) * trials);
  for (int t = 0; t < trials; t++) {
    double a = now_ms();
    bz(core);
    bz_ms[t] = now_ms() - a;
    a = now_ms();
    pkc(deg, buf);
    pkc_ms[t] = now_ms() - a;
  }
  uint64_t sum = 0;
  uint32_t top = 0;
  for (uint32_t v = 0; v < n; v++) {
    if (core[v] != deg[v]) {
      fprintf(stderr, "vertex %u: bucket core %u, parallel peeling %u\n", v, core[v], deg[v]);
      return 1;
    }
    sum += core[v];
    if (core[v] > top) top = core[v];
  }
  qsort(bz_ms, trials, sizeof(double), cmp);
  qsort(pkc_ms, trials, sizeof(double), cmp);
  printf("%.3f %.3f %u %llu %d\n", bz_ms[trials / 2], pkc_ms[trials / 2], top, (unsigned long long)sum,
         omp_get_max_threads());
  return 0;
}
