/* Full-information Klondike solver (C core of solitaire_coach.core.solver).
 *
 * Depth-first search over positions where every card is known, with
 *  - talon macro moves: every card the stock/waste can bring to the top of the waste
 *    (by drawing and turning over within the redeal limit) is one move, expanded back
 *    into draw/redeal steps for the solution;
 *  - automatic safe foundation moves (a card whose tableau children are all on the
 *    foundations already, aces and twos);
 *  - a transposition table keyed by a 120-bit hash of the position, invariant under
 *    permuting the columns, that stores the fewest redeals a position was reached with
 *    (a position reached again with as many or more redeals used is pruned);
 *  - move ordering (uncover face-down cards first).
 * Winnability is reachability of the won position, and DFS with a visited set explores
 * everything reachable, so an exhausted search (no node, time, table or depth limit
 * hit) proves the deal lost.
 *
 * Python API: solve(columns, talon, ptr, foundations, redeals_used, draw_count,
 *                   redeal_limit, foundation_return, redeal_reverses, node_limit,
 *                   time_limit, table_bits) -> (status, moves, nodes)
 *   columns: 7 tuples (hidden: bytes, faceup: bytes) of card indexes suit*13+rank-1
 *   talon: bytes, waste bottom..top then stock next..last; ptr = len(waste)
 *   status: 1 won, 0 lost, -1 unknown (a limit was hit)
 *   moves: list of (kind, a, b): 0 draw, 1 redeal, 2 w-f, 3 w-b, 4 a-f, 5 a-b, 6 fa-b
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NCOL 7
#define MAXCOL 20
#define MAXTALON 24
#define MAXMV 400
#define MAXDEPTH 1500

#define RANK(c) ((c) % 13 + 1)
#define SUIT(c) ((c) / 13)
#define RED(c) (SUIT(c) == 1 || SUIT(c) == 2)

enum { MV_T2F, MV_T2C, MV_C2F, MV_C2C, MV_F2C };
enum { OUT_DRAW, OUT_REDEAL, OUT_W2F, OUT_W2C, OUT_C2F, OUT_C2C, OUT_F2C };

typedef struct {
    uint8_t cards[NCOL][MAXCOL];
    uint8_t n[NCOL];
    uint8_t h[NCOL];
    uint8_t talon[MAXTALON];
    uint8_t nt, ptr;
    uint8_t f[4];
    uint8_t redeals;
} St;

typedef struct {
    uint8_t kind, a, b, q, pos, k;
    int16_t score;
} Mv;

typedef struct {
    int dc;          /* draw count */
    int limit;       /* redeal limit, -1 unlimited */
    int fret;        /* foundation return */
    int reverses;    /* redeal puts the waste back reversed (as GameState does) */
} Rules;

typedef struct {
    St s;
    int nmv, cur, nauto;
    Mv mv[MAXMV];
    Mv autos[52];
} Frame;

typedef struct {
    uint64_t *keys; /* pairs: a, b (b low byte: redeals used) */
    uint64_t mask;
    uint64_t count, cap;
    int full;
} Table;

static inline int fits(int c, int onto) { return RANK(c) + 1 == RANK(onto) && RED(c) != RED(onto); }

static inline uint64_t mix64(uint64_t x) {
    x ^= x >> 33; x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}
static inline uint64_t mix64b(uint64_t x) {
    x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27; x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

static void hash_state(const St *s, uint64_t *ka, uint64_t *kb) {
    uint64_t a = 0, b = 0;
    for (int i = 0; i < NCOL; i++) {
        uint64_t pa = 0x9e3779b97f4a7c15ULL + s->h[i], pb = 0x243f6a8885a308d3ULL + s->h[i];
        for (int j = 0; j < s->n[i]; j++) {
            pa = pa * 0x100000001b3ULL + s->cards[i][j] + 1;
            pb = (pb ^ (s->cards[i][j] + 7)) * 0xc6a4a7935bd1e995ULL;
        }
        a += mix64(pa);   /* a sum: the same for any order of the columns */
        b += mix64b(pb);
    }
    uint64_t ta = 0x517cc1b727220a95ULL + s->ptr, tb = 0x2545f4914f6cdd1dULL + s->ptr * 31;
    for (int j = 0; j < s->nt; j++) {
        ta = ta * 0x100000001b3ULL + s->talon[j] + 1;
        tb = (tb ^ (s->talon[j] + 3)) * 0xc6a4a7935bd1e995ULL;
    }
    a ^= mix64b(ta + 0x1234567ULL);
    b ^= mix64(tb + 0x7654321ULL);
    *ka = a | 1;
    *kb = b & ~(uint64_t)0xFF;
}

/* Returns 1 when the position was already reached with no more redeals (prune). */
static int table_visit(Table *t, uint64_t a, uint64_t b, int redeals) {
    uint64_t i = (a ^ (a >> 29)) & t->mask;
    for (;;) {
        uint64_t *e = &t->keys[2 * i];
        if (e[0] == 0) {
            if (t->count >= t->cap) { t->full = 1; return 1; }
            e[0] = a; e[1] = b | (uint64_t)redeals;
            t->count++;
            return 0;
        }
        if (e[0] == a && (e[1] & ~(uint64_t)0xFF) == b) {
            int old = (int)(e[1] & 0xFF);
            if (old <= redeals) return 1;
            e[1] = b | (uint64_t)redeals;
            return 0;
        }
        i = (i + 1) & t->mask;
    }
}

static inline void flip(St *s, int c) {
    if (s->n[c] > 0 && s->h[c] == s->n[c]) s->h[c]--;
}

static int redeals_left(const St *s, const Rules *R) {
    if (R->limit < 0) return 1000;
    int left = R->limit - s->redeals;
    return left < 0 ? 0 : left;
}

static uint8_t take_talon(St *s, int q, int pos, const Rules *R) {
    if (R->reverses && (q & 1)) {
        for (int i = 0, j = s->nt - 1; i < j; i++, j--) {
            uint8_t t = s->talon[i]; s->talon[i] = s->talon[j]; s->talon[j] = t;
        }
    }
    int idx = pos - 1;
    uint8_t c = s->talon[idx];
    memmove(&s->talon[idx], &s->talon[idx + 1], s->nt - idx - 1);
    s->nt--;
    s->ptr = idx;
    s->redeals += q;
    return c;
}

static void apply(St *s, const Mv *m, const Rules *R) {
    uint8_t c;
    int k;
    switch (m->kind) {
    case MV_T2F:
        c = take_talon(s, m->q, m->pos, R);
        s->f[SUIT(c)]++;
        break;
    case MV_T2C:
        c = take_talon(s, m->q, m->pos, R);
        s->cards[m->b][s->n[m->b]++] = c;
        break;
    case MV_C2F:
        c = s->cards[m->a][--s->n[m->a]];
        s->f[SUIT(c)]++;
        flip(s, m->a);
        break;
    case MV_C2C:
        k = s->n[m->a] - m->k;
        memcpy(&s->cards[m->b][s->n[m->b]], &s->cards[m->a][m->k], k);
        s->n[m->b] += k;
        s->n[m->a] = m->k;
        flip(s, m->a);
        break;
    case MV_F2C:
        c = (uint8_t)(m->a * 13 + s->f[m->a] - 1);
        s->f[m->a]--;
        s->cards[m->b][s->n[m->b]++] = c;
        break;
    }
}

typedef struct { int *v; int n, cap; } Out;
static int emit(Out *o, const St *s, const Mv *m, const Rules *R);

static inline int safe_up(const St *s, int c) {
    int r = RANK(c);
    if (r <= 2) return 1;
    if (RED(c)) return s->f[0] >= r - 1 && s->f[3] >= r - 1;
    return s->f[1] >= r - 1 && s->f[2] >= r - 1;
}

/* Apply safe foundation moves until none is left; record them in the frame. */
static void do_autos_out(Frame *F, const Rules *R, Out *out) {
    St *s = &F->s;
    F->nauto = 0;
    int again = 1;
    while (again) {
        again = 0;
        for (int i = 0; i < NCOL; i++) {
            if (s->n[i] > s->h[i]) {
                int c = s->cards[i][s->n[i] - 1];
                if (s->f[SUIT(c)] + 1 == RANK(c) && safe_up(s, c)) {
                    Mv m = {MV_C2F, (uint8_t)i, 0, 0, 0, 0, 0};
                    if (out) emit(out, s, &m, R);
                    apply(s, &m, R);
                    F->autos[F->nauto++] = m;
                    again = 1;
                }
            }
        }
        if (R->dc == 1 && s->ptr > 0) {
            int c = s->talon[s->ptr - 1];
            if (s->f[SUIT(c)] + 1 == RANK(c) && safe_up(s, c)) {
                Mv m = {MV_T2F, 0, 0, 0, s->ptr, 0, 0};
                if (out) emit(out, s, &m, R);
                apply(s, &m, R);
                F->autos[F->nauto++] = m;
                again = 1;
            }
        }
    }
}

static void do_autos(Frame *F, const Rules *R) { do_autos_out(F, R, NULL); }

static inline int is_won(const St *s) { return s->f[0] == 13 && s->f[1] == 13 && s->f[2] == 13 && s->f[3] == 13; }

static inline void add(Frame *F, uint8_t kind, int a, int b, int q, int pos, int k, int score) {
    if (F->nmv >= MAXMV) return;
    Mv *m = &F->mv[F->nmv++];
    m->kind = kind; m->a = (uint8_t)a; m->b = (uint8_t)b; m->q = (uint8_t)q; m->pos = (uint8_t)pos;
    m->k = (uint8_t)k; m->score = (int16_t)score;
}

static void talon_card_moves(Frame *F, int c, int q, int pos, int empty_col) {
    const St *s = &F->s;
    int cost = q * 30 + 0;
    if (s->f[SUIT(c)] + 1 == RANK(c)) add(F, MV_T2F, 0, 0, q, pos, 0, 60 - cost);
    for (int j = 0; j < NCOL; j++) {
        if (s->n[j] > s->h[j]) {
            if (fits(c, s->cards[j][s->n[j] - 1])) add(F, MV_T2C, 0, j, q, pos, 0, 40 - cost);
        }
    }
    if (RANK(c) == 13 && empty_col >= 0) add(F, MV_T2C, 0, empty_col, q, pos, 0, 35 - cost);
}

static int king_wants_column(const St *s) {
    for (int i = 0; i < NCOL; i++)
        for (int k = 0; k < s->n[i]; k++)
            if (RANK(s->cards[i][k]) == 13 && (k > 0 || s->h[i] > 0)) return 1;
    for (int j = 0; j < s->nt; j++)
        if (RANK(s->talon[j]) == 13) return 1;
    return 0;
}

/* restricted: the quick first pass leaves out moves that rarely help (incomplete) */
static void gen_moves(Frame *F, const Rules *R, int restricted) {
    const St *s = &F->s;
    F->nmv = 0;
    F->cur = 0;
    int empty_col = -1;
    for (int j = 0; j < NCOL; j++)
        if (s->n[j] == 0) { empty_col = j; break; }
    int kings = restricted ? king_wants_column(s) : 1;
    /* tableau moves */
    for (int i = 0; i < NCOL; i++) {
        if (s->n[i] <= s->h[i]) continue;
        int top = s->cards[i][s->n[i] - 1];
        if (s->f[SUIT(top)] + 1 == RANK(top)) {
            int sc = 50 + (s->n[i] - 1 == s->h[i] && s->h[i] > 0 ? 60 + s->h[i] : 0);
            add(F, MV_C2F, i, 0, 0, 0, 0, sc);
        }
        int base = s->h[i];
        for (int j = 0; j < NCOL; j++) {
            if (j == i) continue;
            if (s->n[j] > s->h[j]) {
                int dst = s->cards[j][s->n[j] - 1];
                for (int k = base; k < s->n[i]; k++) {
                    if (fits(s->cards[i][k], dst)) {
                        int sc;
                        if (k == base && s->h[i] > 0) sc = 100 + s->h[i] * 2;
                        else if (k == base) {
                            if (!kings) break;
                            sc = 30;
                        } else {
                            int ex = s->cards[i][k - 1];
                            int up = s->f[SUIT(ex)] + 1 == RANK(ex);
                            if (restricted && !up) break;
                            sc = up ? 45 : -10;
                        }
                        add(F, MV_C2C, i, j, 0, 0, k, sc);
                        break;
                    }
                }
            } else if (j == empty_col && s->h[i] > 0 && RANK(s->cards[i][base]) == 13) {
                add(F, MV_C2C, i, j, 0, 0, base, 90 + s->h[i] * 2);
            }
        }
    }
    /* talon moves: every card that can reach the top of the waste */
    if (s->nt > 0) {
        int dc = R->dc, nt = s->nt;
        int left = redeals_left(s, R);
        int maxq = R->reverses ? 2 : 1;
        if (maxq > left) maxq = left;
        uint32_t seen[2] = {0, 0};
        for (int q = 0; q <= maxq; q++) {
            int orient = (R->reverses && (q & 1)) ? 1 : 0;
            int p = (q == 0) ? s->ptr : 0;
            int first = 1;
            for (;;) {
                if (!(first && q == 0)) {
                    if (p >= nt) break;
                    p = p + dc < nt ? p + dc : nt;
                }
                first = 0;
                if (p <= 0) continue;
                if (seen[orient] & (1u << p)) continue;
                seen[orient] |= 1u << p;
                int c = orient ? s->talon[nt - p] : s->talon[p - 1];
                talon_card_moves(F, c, q, p, empty_col);
            }
        }
    }
    if (R->fret) {
        for (int su = 0; su < 4; su++) {
            if (!s->f[su]) continue;
            int c = su * 13 + s->f[su] - 1;
            for (int j = 0; j < NCOL; j++) {
                if (s->n[j] > s->h[j]) {
                    if (fits(c, s->cards[j][s->n[j] - 1])) add(F, MV_F2C, su, j, 0, 0, 0, -50);
                } else if (j == empty_col && RANK(c) == 13) {
                    add(F, MV_F2C, su, j, 0, 0, 0, -60);
                }
            }
        }
    }
    /* order: highest score first (stable insertion sort) */
    for (int i = 1; i < F->nmv; i++) {
        Mv m = F->mv[i];
        int j = i - 1;
        while (j >= 0 && F->mv[j].score < m.score) { F->mv[j + 1] = F->mv[j]; j--; }
        F->mv[j + 1] = m;
    }
}

/* ---- solution output ---- */

static int out_push(Out *o, int kind, int a, int b) {
    if (o->n + 3 > o->cap) {
        int nc = o->cap ? o->cap * 2 : 768;
        int *nv = realloc(o->v, sizeof(int) * nc);
        if (!nv) return -1;
        o->v = nv; o->cap = nc;
    }
    o->v[o->n++] = kind; o->v[o->n++] = a; o->v[o->n++] = b;
    return 0;
}

static inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

static int emit(Out *o, const St *s, const Mv *m, const Rules *R) {
    int r = 0;
    switch (m->kind) {
    case MV_T2F: case MV_T2C: {
        int dc = R->dc;
        if (m->q == 0) {
            for (int i = 0; i < ceil_div(m->pos - s->ptr, dc); i++) r |= out_push(o, OUT_DRAW, 0, 0);
        } else {
            for (int i = 0; i < ceil_div(s->nt - s->ptr, dc); i++) r |= out_push(o, OUT_DRAW, 0, 0);
            r |= out_push(o, OUT_REDEAL, 0, 0);
            for (int p = 1; p < m->q; p++) {
                for (int i = 0; i < ceil_div(s->nt, dc); i++) r |= out_push(o, OUT_DRAW, 0, 0);
                r |= out_push(o, OUT_REDEAL, 0, 0);
            }
            for (int i = 0; i < ceil_div(m->pos, dc); i++) r |= out_push(o, OUT_DRAW, 0, 0);
        }
        if (m->kind == MV_T2F) r |= out_push(o, OUT_W2F, 0, 0);
        else r |= out_push(o, OUT_W2C, 0, m->b);
        break;
    }
    case MV_C2F: r |= out_push(o, OUT_C2F, m->a, 0); break;
    case MV_C2C: r |= out_push(o, OUT_C2C, m->a, m->b); break;
    case MV_F2C: r |= out_push(o, OUT_F2C, m->a, m->b); break;
    }
    return r;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* status: 1 won, 0 lost, -1 unknown; -2 out of memory */
static int search(const St *start, const Rules *R, long long node_limit, double time_limit, int table_bits,
                  int restricted, long long *nodes_out, Out *out) {
    Frame *fr = malloc(sizeof(Frame) * (MAXDEPTH + 1));
    Table t;
    t.mask = ((uint64_t)1 << table_bits) - 1;
    t.cap = (t.mask + 1) / 4 * 3;
    t.count = 0; t.full = 0;
    t.keys = calloc((size_t)(t.mask + 1) * 2, sizeof(uint64_t));
    if (!fr || !t.keys) { free(fr); free(t.keys); return -2; }
    double deadline = time_limit > 0 ? now_s() + time_limit : 0;
    long long nodes = 0;
    int aborted = 0, found = -1, depth = 0;

    fr[0].s = *start;
    for (int i = 0; i < NCOL; i++) flip(&fr[0].s, i);
    do_autos(&fr[0], R);
    if (is_won(&fr[0].s)) found = 0;
    else {
        uint64_t a, b;
        hash_state(&fr[0].s, &a, &b);
        table_visit(&t, a, b, fr[0].s.redeals);
        gen_moves(&fr[0], R, restricted);
    }
    while (found < 0 && depth >= 0) {
        Frame *F = &fr[depth];
        if (F->cur >= F->nmv) { depth--; continue; }
        Mv m = F->mv[F->cur++];
        Frame *C = &fr[depth + 1];
        C->s = F->s;
        apply(&C->s, &m, R);
        nodes++;
        if ((node_limit > 0 && nodes >= node_limit) ||
            (deadline > 0 && (nodes & 1023) == 0 && now_s() > deadline)) { aborted = 1; break; }
        do_autos(C, R);
        if (is_won(&C->s)) { found = depth + 1; break; }
        uint64_t a, b;
        hash_state(&C->s, &a, &b);
        if (table_visit(&t, a, b, C->s.redeals)) {
            if (t.full) { aborted = 1; break; }
            continue;
        }
        if (depth + 1 >= MAXDEPTH) { aborted = 1; continue; }
        gen_moves(C, R, restricted);
        depth++;
    }
    int status;
    if (found >= 0) {
        status = 1;
        out->n = 0;
        for (int d = 0; d <= found; d++) {
            /* autos of frame d were applied to the state before them; re-derive that state */
            St s = (d == 0) ? *start : fr[d - 1].s;
            if (d == 0) for (int i = 0; i < NCOL; i++) flip(&s, i);
            else apply(&s, &fr[d - 1].mv[fr[d - 1].cur - 1], R);
            for (int x = 0; x < fr[d].nauto; x++) {
                if (emit(out, &s, &fr[d].autos[x], R)) { status = -2; break; }
                apply(&s, &fr[d].autos[x], R);
            }
            if (d < found) {
                if (emit(out, &fr[d].s, &fr[d].mv[fr[d].cur - 1], R)) { status = -2; break; }
            }
        }
    } else {
        status = aborted ? -1 : 0;
        if (restricted && status == 0) status = -1; /* an incomplete search proves nothing */
    }
    *nodes_out = nodes;
    free(fr);
    free(t.keys);
    return status;
}


/* ---- greedy best-first search (the quick, incomplete pass) ---- */
typedef struct { St s; int32_t parent; Mv m; } BNode;
typedef struct { int32_t key, idx; } HItem;

static int heuristic(const St *s, int depth) {
    int hidden = 0;
    for (int i = 0; i < NCOL; i++) hidden += s->h[i];
    int fsum = s->f[0] + s->f[1] + s->f[2] + s->f[3];
    (void)depth;
    return 4 * hidden + (52 - fsum) * 2 + s->nt + 3 * s->redeals;
}

static void heap_push(HItem *h, int *n, HItem it) {
    int i = (*n)++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (h[p].key < it.key || (h[p].key == it.key && h[p].idx < it.idx)) break;
        h[i] = h[p]; i = p;
    }
    h[i] = it;
}
static HItem heap_pop(HItem *h, int *n) {
    HItem top = h[0], last = h[--(*n)];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= *n) break;
        if (c + 1 < *n && (h[c + 1].key < h[c].key || (h[c + 1].key == h[c].key && h[c + 1].idx < h[c].idx))) c++;
        if (last.key < h[c].key || (last.key == h[c].key && last.idx < h[c].idx)) break;
        h[i] = h[c]; i = c;
    }
    h[i] = last;
    return top;
}

static void bf_emit_path(const BNode *nodes, int leaf, const St *start, const Rules *R, Out *out, Frame *tmp) {
    int len = 0;
    for (int i = leaf; i > 0; i = nodes[i].parent) len++;
    int *path = malloc(sizeof(int) * (len + 1));
    int k = len;
    for (int i = leaf; i > 0; i = nodes[i].parent) path[--k] = i;
    tmp->s = *start;
    for (int i = 0; i < NCOL; i++) flip(&tmp->s, i);
    do_autos_out(tmp, R, out);
    for (k = 0; k < len; k++) {
        const Mv *m = &nodes[path[k]].m;
        emit(out, &tmp->s, m, R);
        apply(&tmp->s, m, R);
        do_autos_out(tmp, R, out);
    }
    free(path);
}

static int bestfirst(const St *start, const Rules *R, long long node_limit, double time_limit, int table_bits,
                     long long *nodes_out, Out *out) {
    long long cap = node_limit > 0 ? node_limit + 2 : 2000000;
    if (cap > 4000000) cap = 4000000;
    BNode *nodes = malloc(sizeof(BNode) * cap);
    HItem *heap = malloc(sizeof(HItem) * (cap * 1 + 16));
    Frame *F = malloc(sizeof(Frame)), *C = malloc(sizeof(Frame));
    Table t;
    t.mask = ((uint64_t)1 << table_bits) - 1;
    t.cap = (t.mask + 1) / 4 * 3;
    t.count = 0; t.full = 0;
    t.keys = calloc((size_t)(t.mask + 1) * 2, sizeof(uint64_t));
    int status = -1;
    long long count = 0;
    if (!nodes || !heap || !F || !C || !t.keys) { status = -2; goto done; }
    double deadline = time_limit > 0 ? now_s() + time_limit : 0;
    int nh = 0, nn = 0;
    F->s = *start;
    for (int i = 0; i < NCOL; i++) flip(&F->s, i);
    do_autos(F, R);
    nodes[0].s = F->s; nodes[0].parent = -1;
    if (is_won(&F->s)) { bf_emit_path(nodes, 0, start, R, out, C); status = 1; goto done; }
    nn = 1;
    {
        uint64_t a, b;
        hash_state(&F->s, &a, &b);
        table_visit(&t, a, b, F->s.redeals);
    }
    heap_push(heap, &nh, (HItem){heuristic(&F->s, 0), 0});
    while (nh > 0 && status == -1) {
        HItem it = heap_pop(heap, &nh);
        F->s = nodes[it.idx].s;
        gen_moves(F, R, 1);
        for (int x = 0; x < F->nmv; x++) {
            C->s = F->s;
            apply(&C->s, &F->mv[x], R);
            do_autos(C, R);
            count++;
            if (is_won(&C->s)) {
                nodes[nn].s = C->s; nodes[nn].parent = it.idx; nodes[nn].m = F->mv[x];
                bf_emit_path(nodes, nn, start, R, out, C);
                status = 1;
                break;
            }
            uint64_t a, b;
            hash_state(&C->s, &a, &b);
            if (table_visit(&t, a, b, C->s.redeals)) { if (t.full) { status = -3; break; } continue; }
            if (nn >= cap - 1 || (node_limit > 0 && count >= node_limit)) { status = -3; break; }
            nodes[nn].s = C->s; nodes[nn].parent = it.idx; nodes[nn].m = F->mv[x];
            heap_push(heap, &nh, (HItem){heuristic(&C->s, 0), nn});
            nn++;
        }
        if (deadline > 0 && now_s() > deadline) status = -3;
    }
    if (status == -3) status = -1;
    /* an exhausted restricted search proves nothing either: status stays -1 */
done:
    *nodes_out = count;
    free(nodes); free(heap); free(F); free(C); free(t.keys);
    return status;
}

static int read_bytes(PyObject *obj, uint8_t *dst, int maxn, const char *what) {
    char *buf;
    Py_ssize_t len;
    if (PyBytes_AsStringAndSize(obj, &buf, &len) < 0) return -1;
    if (len > maxn) {
        PyErr_Format(PyExc_ValueError, "%s has %zd cards, at most %d fit", what, len, maxn);
        return -1;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        if ((uint8_t)buf[i] >= 52) {
            PyErr_Format(PyExc_ValueError, "%s: %d is not a card index 0..51", what, (int)(uint8_t)buf[i]);
            return -1;
        }
        dst[i] = (uint8_t)buf[i];
    }
    return (int)len;
}

static PyObject *py_solve(PyObject *self, PyObject *args) {
    PyObject *columns, *talon, *found;
    int ptr, redeals_used, dc, limit, fret, reverses, table_bits;
    long long node_limit, quick_nodes = 0;
    double time_limit;
    if (!PyArg_ParseTuple(args, "OOiOiiiiiLdi|L", &columns, &talon, &ptr, &found, &redeals_used, &dc, &limit,
                          &fret, &reverses, &node_limit, &time_limit, &table_bits, &quick_nodes))
        return NULL;
    St s;
    memset(&s, 0, sizeof s);
    if (!PySequence_Check(columns) || PySequence_Size(columns) != NCOL) {
        PyErr_SetString(PyExc_ValueError, "columns must be 7 (hidden, faceup) pairs");
        return NULL;
    }
    for (int i = 0; i < NCOL; i++) {
        PyObject *pair = PySequence_GetItem(columns, i);
        if (!pair) return NULL;
        PyObject *hid = PySequence_GetItem(pair, 0), *up = PySequence_GetItem(pair, 1);
        Py_DECREF(pair);
        if (!hid || !up) { Py_XDECREF(hid); Py_XDECREF(up); return NULL; }
        int nh = read_bytes(hid, s.cards[i], MAXCOL - 1, "hidden cards of a column");
        int nu = nh < 0 ? -1 : read_bytes(up, s.cards[i] + nh, MAXCOL - 1 - nh, "face-up cards of a column");
        Py_DECREF(hid); Py_DECREF(up);
        if (nh < 0 || nu < 0) return NULL;
        s.h[i] = (uint8_t)nh; s.n[i] = (uint8_t)(nh + nu);
    }
    int nt = read_bytes(talon, s.talon, MAXTALON, "the stock and waste");
    if (nt < 0) return NULL;
    s.nt = (uint8_t)nt;
    if (ptr < 0 || ptr > nt) { PyErr_SetString(PyExc_ValueError, "waste size out of range"); return NULL; }
    s.ptr = (uint8_t)ptr;
    if (!PySequence_Check(found) || PySequence_Size(found) != 4) {
        PyErr_SetString(PyExc_ValueError, "foundations must be 4 heights");
        return NULL;
    }
    for (int i = 0; i < 4; i++) {
        PyObject *x = PySequence_GetItem(found, i);
        if (!x) return NULL;
        long v = PyLong_AsLong(x);
        Py_DECREF(x);
        if (v < 0 || v > 13) { if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "foundation height out of 0..13"); return NULL; }
        s.f[i] = (uint8_t)v;
    }
    if (redeals_used < 0 || redeals_used > 200) { PyErr_SetString(PyExc_ValueError, "redeals used out of range"); return NULL; }
    s.redeals = (uint8_t)redeals_used;
    if (dc != 1 && dc != 3) { PyErr_SetString(PyExc_ValueError, "draw count must be 1 or 3"); return NULL; }
    if (table_bits < 10 || table_bits > 30) { PyErr_SetString(PyExc_ValueError, "table_bits must be 10..30"); return NULL; }
    Rules R = {dc, limit, fret, reverses};
    if (limit >= 0 && limit > 200) R.limit = 200;
    long long nodes = 0;
    Out out = {NULL, 0, 0};
    int status;
    Py_BEGIN_ALLOW_THREADS
    {
        double t0 = now_s();
        long long quick = 0;
        status = -1;
        if (quick_nodes > 0) {
            status = bestfirst(&s, &R, quick_nodes, time_limit, table_bits, &quick, &out);
        }
        if (status == -1) {
            double left = time_limit > 0 ? time_limit - (now_s() - t0) : 0;
            long long nl = node_limit > 0 ? node_limit - quick : 0;
            if ((time_limit > 0 && left <= 0) || (node_limit > 0 && nl <= 0)) {
                nodes = 0;
            } else {
                status = search(&s, &R, nl, left, table_bits, 0, &nodes, &out);
            }
        }
        nodes += quick;
    }
    Py_END_ALLOW_THREADS
    if (status == -2) { free(out.v); return PyErr_NoMemory(); }
    PyObject *list = PyList_New(out.n / 3);
    if (!list) { free(out.v); return NULL; }
    for (int i = 0; i < out.n / 3; i++) {
        PyObject *tup = Py_BuildValue("(iii)", out.v[3 * i], out.v[3 * i + 1], out.v[3 * i + 2]);
        if (!tup) { Py_DECREF(list); free(out.v); return NULL; }
        PyList_SET_ITEM(list, i, tup);
    }
    free(out.v);
    return Py_BuildValue("(iNL)", status, list, nodes);
}

static PyMethodDef methods[] = {
    {"solve", py_solve, METH_VARARGS, "Solve a full-information Klondike position (see the module source)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_csolver", "C core of the Klondike solver.", -1, methods};

PyMODINIT_FUNC PyInit__csolver(void) { return PyModule_Create(&module); }
