/* The value of every two-seat Gops position with at most K cards in each hand, under the point-
 * difference rules where a tied round's prize is set aside: f(V, Y, P) for every set P of prizes
 * still to come (ranks 1..13), every pair of hands in their relative order (Rhoads & Bartholdi,
 * Games 3, 2012).  Written to stdout in the format service/games/gops/values.py reads; the Python
 * side documents it.  Built by `python -m tools.gops_values` (which compiles this file with cc).
 *
 *   f(V, Y, P)  = mean over p in P of val(M_p)
 *   M_p[i][j]   = sgn(V_i - Y_j) * p + f(V - V_i, Y - Y_j, P - p)
 *
 * An order is the hands' cards in increasing order, each marked A (the seat's alone), B (the
 * rival's alone) or C (both hold it); its code packs 2 bits a card, lowest card first (A=1, B=2,
 * C=3).  Swapping the seats swaps A and B and negates the value, so only the order of each pair
 * with the smaller code is stored (the all-C orders, equal hands, are worth 0 and not stored).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RANKS 13
#define MAXK 13
#define SCALE 512.0

static int K;                          /* the largest hand tabled */
static int64_t choose[32][32];
static int prize_rank[1 << RANKS];     /* colex rank of a prize set among the sets of its size */
static int *order_index[MAXK + 1];     /* code -> +(index+1) canonical, -(index+1) swapped, 0 none */
static uint32_t *orders[MAXK + 1];     /* canonical codes by index */
static int order_count[MAXK + 1];
static double *value[MAXK + 1];         /* [index * sets + prize_rank]: a position's continuations,
                                          * read for every set of prizes in turn, stay in the cache */
static size_t set_count[MAXK + 1];

static uint32_t swap_code(uint32_t code, int m) {
    uint32_t out = 0;
    for (int i = 0; i < m; i++) {
        uint32_t s = (code >> (2 * i)) & 3;
        if (s == 1) s = 2; else if (s == 2) s = 1;
        out |= s << (2 * i);
    }
    return out;
}

/* every sequence with a A's, b B's and c C's, k = a + c = b + c */
static void enumerate(int k, int a, int b, int c, int pos, uint32_t code, uint32_t *out, int *n) {
    if (a == 0 && b == 0 && c == 0) { out[(*n)++] = code; return; }
    if (a) enumerate(k, a - 1, b, c, pos + 1, code | (1u << (2 * pos)), out, n);
    if (b) enumerate(k, a, b - 1, c, pos + 1, code | (2u << (2 * pos)), out, n);
    if (c) enumerate(k, a, b, c - 1, pos + 1, code | (3u << (2 * pos)), out, n);
}

static int code_len(uint32_t code) { int m = 0; while (code >> (2 * m)) m++; return m; }

static void make_orders(int k) {
    size_t cap = 1u << (4 * k);
    order_index[k] = calloc(cap, sizeof(int));
    uint32_t *all = malloc(sizeof(uint32_t) * 4000000);
    int n = 0;
    for (int c = 0; c <= k; c++) enumerate(k, k - c, k - c, c, 0, 0, all, &n);
    orders[k] = malloc(sizeof(uint32_t) * n);
    int count = 0;
    for (int t = 0; t < n; t++) {
        uint32_t code = all[t], sw = swap_code(code, code_len(code));
        if (code < sw) orders[k][count++] = code;  /* code == sw only for all-C: worth 0 */
    }
    /* sort canonical codes so the index order is the code order (the Python side rebuilds it) */
    for (int i = 1; i < count; i++) {
        uint32_t x = orders[k][i]; int j = i - 1;
        while (j >= 0 && orders[k][j] > x) { orders[k][j + 1] = orders[k][j]; j--; }
        orders[k][j + 1] = x;
    }
    for (int i = 0; i < count; i++) {
        uint32_t code = orders[k][i];
        order_index[k][code] = i + 1;
        order_index[k][swap_code(code, code_len(code))] = -(i + 1);
    }
    order_count[k] = count;
    free(all);
}

/* the value of a matrix game (row player maximising), n x n with n <= MAXK */
static double game_value(double M[MAXK][MAXK], int n) {
    double lo = M[0][0];
    for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) if (M[i][j] < lo) lo = M[i][j];
    /* a saddle point settles it without programming */
    double maxmin = -1e300, minmax = 1e300;
    for (int i = 0; i < n; i++) {
        double r = 1e300; for (int j = 0; j < n; j++) if (M[i][j] < r) r = M[i][j];
        if (r > maxmin) maxmin = r;
    }
    for (int j = 0; j < n; j++) {
        double c = -1e300; for (int i = 0; i < n; i++) if (M[i][j] > c) c = M[i][j];
        if (c < minmax) minmax = c;
    }
    if (maxmin >= minmax - 1e-12) return maxmin;
    /* column player: max sum w  s.t.  A w <= 1, w >= 0, with A = M - lo + 1 > 0; val(A) = 1 / sum w */
    double T[MAXK + 1][2 * MAXK + 1];
    int basis[MAXK], w = 2 * n;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) T[i][j] = M[i][j] - lo + 1.0;
        for (int j = 0; j < n; j++) T[i][n + j] = (i == j);
        T[i][w] = 1.0;
        basis[i] = n + i;
    }
    for (int j = 0; j < n; j++) T[n][j] = -1.0;
    for (int j = n; j <= w; j++) T[n][j] = 0.0;
    for (int iter = 0; iter < 200; iter++) {
        int enter = -1;
        for (int j = 0; j < w; j++) if (T[n][j] < -1e-12) { enter = j; break; }   /* Bland */
        if (enter < 0) break;
        int leave = -1; double best = 1e300;
        for (int i = 0; i < n; i++) if (T[i][enter] > 1e-12) {
            double r = T[i][w] / T[i][enter];
            if (r < best - 1e-12 || (r < best + 1e-12 && leave >= 0 && basis[i] < basis[leave])) { best = r; leave = i; }
        }
        if (leave < 0) { fprintf(stderr, "unbounded programme\n"); exit(2); }
        double piv = T[leave][enter];
        for (int j = 0; j <= w; j++) T[leave][j] /= piv;
        for (int i = 0; i <= n; i++) if (i != leave && T[i][enter] != 0.0) {
            double f = T[i][enter];
            for (int j = 0; j <= w; j++) T[i][j] -= f * T[leave][j];
        }
        basis[leave] = enter;
    }
    return 1.0 / T[n][w] + lo - 1.0;
}

/* f of the order `code` (any orientation) with the prizes `mask`, from the tables of smaller hands */
static double model_value(int k, const int *V, const int *Y, const int *P);
static int model_k = 0;   /* hands of this many cards are valued by the model, not the table */

static double lookup(int k, uint32_t code, int mask) {
    if (k == 0) return 0.0;
    if (k == model_k) {   /* decode the order and the prizes for the model */
        int V[MAXK], Y[MAXK], P[MAXK], nv = 0, ny = 0, np_ = 0;
        for (int i = 0; code >> (2 * i); i++) {
            int s = (code >> (2 * i)) & 3;
            if (s & 1) V[nv++] = i;
            if (s & 2) Y[ny++] = i;
        }
        for (int r = 0; r < RANKS; r++) if (mask >> r & 1) P[np_++] = r + 1;
        return model_value(k, V, Y, P);
    }
    int idx = order_index[k][code];
    if (idx == 0) return 0.0;  /* equal hands */
    double v = value[k][(size_t)(abs(idx) - 1) * set_count[k] + prize_rank[mask]];
    return idx > 0 ? v : -v;
}

static double solve(int k, uint32_t code, int mask) {
    int m = code_len(code), sym[2 * MAXK], vpos[MAXK], ypos[MAXK], nv = 0, ny = 0;
    for (int i = 0; i < m; i++) {
        sym[i] = (code >> (2 * i)) & 3;
        if (sym[i] & 1) vpos[nv++] = i;
        if (sym[i] & 2) ypos[ny++] = i;
    }
    /* the continuation of each pair of bids does not depend on the prize but through the mask */
    double total = 0.0, M[MAXK][MAXK];
    uint32_t rest[MAXK][MAXK];
    for (int i = 0; i < k; i++) for (int j = 0; j < k; j++) {
        int s[2 * MAXK]; memcpy(s, sym, sizeof(int) * m);
        s[vpos[i]] &= ~1; s[ypos[j]] &= ~2;
        uint32_t c = 0; int p = 0;
        for (int t = 0; t < m; t++) if (s[t]) c |= (uint32_t)s[t] << (2 * p++);
        rest[i][j] = c;
    }
    for (int r = 0; r < RANKS; r++) if (mask >> r & 1) {
        int prize = r + 1, left = mask & ~(1 << r);
        for (int i = 0; i < k; i++) for (int j = 0; j < k; j++) {
            int sg = (vpos[i] > ypos[j]) - (vpos[i] < ypos[j]);
            M[i][j] = sg * prize + lookup(k - 1, rest[i][j], left);
        }
        total += game_value(M, k);
    }
    return total / k;
}


/* the model of k-card hands: f = sum over a, b, c of w[a][b][c] * sgn(V_a - Y_b) * P_c (sorted) */
static double *model_w;
static double model_value(int k, const int *V, const int *Y, const int *P) {
    double f = 0.0;
    for (int a = 0; a < k; a++) for (int b = 0; b < k; b++) {
        int s = (V[a] > Y[b]) - (V[a] < Y[b]);
        if (!s) continue;
        const double *w = model_w + (a * k + b) * k;
        double u = 0.0;
        for (int c = 0; c < k; c++) u += w[c] * P[c];
        f += s * u;
    }
    return f;
}

static void init_ranks(void) {
    for (int n = 0; n < 32; n++) { choose[n][0] = 1; for (int r = 1; r <= n; r++) choose[n][r] = choose[n - 1][r - 1] + (r <= n - 1 ? choose[n - 1][r] : 0); }
    for (int mask = 0; mask < (1 << RANKS); mask++) {
        int rank = 0, i = 0;
        for (int r = 0; r < RANKS; r++) if (mask >> r & 1) { i++; rank += (int)choose[r][i]; }
        prize_rank[mask] = rank;
    }
}

/* table K [SCALE]: every block 1..K to stdout, values times SCALE rounded (512 keeps 6-card
 * values, at most 63 points, within int16; 7-card ones, up to 70, need 256) */
static int write_table(int top, double scale) {
    fwrite("GOPSVAL1", 1, 8, stdout);
    int32_t head[2] = {top, (int32_t)scale};
    fwrite(head, sizeof(int32_t), 2, stdout);
    int *masks = malloc(sizeof(int) * (1 << RANKS));
    for (int k = 1; k <= top; k++) {
        make_orders(k);
        size_t sets = (size_t)choose[RANKS][k], n = sets * order_count[k];
        set_count[k] = sets;
        value[k] = malloc(sizeof(double) * n);
        int16_t *out = malloc(sizeof(int16_t) * n);   /* the file's layout: [prize_rank * orders + index] */
        int count = 0, bad = 0;
        for (int mask = 0; mask < (1 << RANKS); mask++) if (__builtin_popcount(mask) == k) masks[count++] = mask;
        #pragma omp parallel for schedule(dynamic, 16) reduction(|:bad)
        for (int o = 0; o < order_count[k]; o++) {   /* each order reads the smaller hands' values only */
            for (int t = 0; t < count; t++) {
                int mask = masks[t];
                double v = solve(k, orders[k][o], mask);
                value[k][(size_t)o * sets + prize_rank[mask]] = v;
                double q = round(v * scale);
                if (q > 32767 || q < -32767) bad = 1;
                out[(size_t)prize_rank[mask] * order_count[k] + o] = (int16_t)q;
            }
        }
        if (bad) { fprintf(stderr, "a value of %d-card hands is out of range at scale %g\n", k, scale); return 2; }
        int32_t block[2] = {k, order_count[k]};
        fwrite(block, sizeof(int32_t), 2, stdout);
        fwrite(out, sizeof(int16_t), n, stdout);
        fprintf(stderr, "k=%d: %d orders x %zu prize sets\n", k, order_count[k], sets);
        free(out);
    }
    free(masks);
    return 0;
}

/* read the blocks 1..top of a values file into memory */
static int read_table(const char *path, int top) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); return 2; }
    char magic[8]; int32_t head[2];
    if (fread(magic, 1, 8, f) != 8 || fread(head, 4, 2, f) != 2 || memcmp(magic, "GOPSVAL1", 8)) { fprintf(stderr, "%s: not a values file\n", path); return 2; }
    if (head[0] < top) { fprintf(stderr, "%s holds hands up to %d cards, not %d\n", path, head[0], top); return 2; }
    for (int k = 1; k <= top; k++) {
        make_orders(k);
        int32_t count[2];
        if (fread(count, 4, 2, f) != 2 || count[0] != k || count[1] != order_count[k]) { fprintf(stderr, "bad block %d\n", k); return 2; }
        size_t n = (size_t)choose[RANKS][k] * order_count[k];
        int16_t *raw = malloc(sizeof(int16_t) * n);
        if (fread(raw, 2, n, f) != n) { fprintf(stderr, "short block %d\n", k); return 2; }
        size_t sets = (size_t)choose[RANKS][k];
        set_count[k] = sets;
        value[k] = malloc(sizeof(double) * n);
        for (size_t r = 0; r < sets; r++)
            for (int o = 0; o < order_count[k]; o++)
                value[k][(size_t)o * sets + r] = raw[r * order_count[k] + o] / (double)head[1];
        free(raw);
    }
    fclose(f);
    return 0;
}

static uint64_t rng_state;
static uint64_t next_random(void) {   /* splitmix64 */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL; z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static int random_subset(int k) {   /* k of the 13 ranks, each set as likely */
    int mask = 0;
    while (__builtin_popcount(mask) < k) mask |= 1 << (next_random() % RANKS);
    return mask;
}

/* samples K N SEED VALUES [MODEL]: N positions of K-card hands and prizes drawn at random, each with
 * f computed from the values of (K-1)-card hands (the table when VALUES holds them, else MODEL) */
static int write_samples(int k, long n, uint64_t seed, const char *values_path, const char *model_path) {
    rng_state = seed;
    int exact_top = k - 1 < 7 ? k - 1 : 7;
    FILE *f = fopen(values_path, "rb"); int32_t head[3] = {0};
    if (f) { (void)!fread(head, 4, 3, f); fclose(f); }
    if (head[2] < exact_top) exact_top = head[2];
    if (read_table(values_path, exact_top)) return 2;
    if (k - 1 > exact_top) {
        FILE *m = fopen(model_path ? model_path : "", "r");
        if (!m) { fprintf(stderr, "hands of %d cards need a model file\n", k - 1); return 2; }
        int mk = k - 1, count = mk * mk * mk;
        model_w = malloc(sizeof(double) * count);
        for (int i = 0; i < count; i++) if (fscanf(m, "%lf", &model_w[i]) != 1) { fprintf(stderr, "short model\n"); return 2; }
        fclose(m);
        model_k = mk;

    }
    for (long t = 0; t < n; t++) {
        int vm = random_subset(k), ym = random_subset(k), pm = random_subset(k);
        /* the order of the two hands */
        uint32_t code = 0; int p = 0;
        for (int r = 0; r < RANKS; r++) {
            int s = (vm >> r & 1) | ((ym >> r & 1) << 1);
            if (s) code |= (uint32_t)s << (2 * p++);
        }
        double f_value = solve(k, code, pm);
        unsigned char out[3 * MAXK];
        int o = 0;
        for (int r = 0; r < RANKS; r++) if (vm >> r & 1) out[o++] = r + 1;
        for (int r = 0; r < RANKS; r++) if (ym >> r & 1) out[o++] = r + 1;
        for (int r = 0; r < RANKS; r++) if (pm >> r & 1) out[o++] = r + 1;
        fwrite(out, 1, 3 * k, stdout);
        fwrite(&f_value, sizeof(double), 1, stdout);
    }
    return 0;
}

int main(int argc, char **argv) {
    init_ranks();
    if (argc >= 3 && !strcmp(argv[1], "table")) {
        K = atoi(argv[2]);
        if (K < 1 || K > 7) { fprintf(stderr, "table: K from 1 to 7\n"); return 2; }
        return write_table(K, argc > 3 ? atof(argv[3]) : SCALE);
    }
    if (argc >= 6 && !strcmp(argv[1], "samples")) {
        int k = atoi(argv[2]);
        if (k < 2 || k > RANKS) { fprintf(stderr, "samples: K from 2 to 13\n"); return 2; }
        return write_samples(k, atol(argv[3]), strtoull(argv[4], 0, 10), argv[5], argc > 6 ? argv[6] : 0);
    }
    fprintf(stderr, "usage: build table K [SCALE] > values.bin | build samples K N SEED VALUES [MODEL] > samples.bin\n");
    return 2;
}
