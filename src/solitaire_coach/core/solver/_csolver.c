/* Full-information Klondike solver (C core of solitaire_coach.core.solver).
 *
 * Two passes share the time limit: a quick greedy best-first search over a restricted move
 * set (QUICK_TIME_SHARE of the time; first one queue for QUICK_ONE_QUEUE positions, then two
 * queues ordered by two estimates, popped in turn; it finds most wins in a few hundred
 * positions and can only say "won"), then an exhaustive depth-first search, the only one that may say "lost".
 * With a redeal limit the exhaustive search goes in layers: a position reached by a redeal,
 * or in draw 1 by drawing on, is set aside and searched later, fewest redeals and most cards
 * left to draw first, so that no position is searched a second time for a better talon
 * (see "the layered search" below).
 * Both use:
 *  - talon macro moves: every card the stock/waste can bring to the top of the waste (by
 *    drawing and turning the waste over within the redeal limit) is one move, expanded back
 *    into draw/redeal steps for the solution;
 *  - a transposition table keyed by a 120-bit Zobrist-style hash of the position, kept up to
 *    date move by move, invariant under permuting the columns (see visit()).
 *
 * The exhaustive search is complete for winnability: it prunes only what is dominated for
 * sure, each rule argued where it is coded:
 *  1. safe foundation moves are played at once (safe_up: aces and twos, cards whose tableau
 *     children are on the foundations, and the wider rule that the two cards of the other
 *     colour one lower can go to the foundation whenever free, and so can the card under
 *     them);
 *  2. the table prunes a position already visited, or (draw 1; draw 3 without a redeal
 *     limit) one that a visited position with the same cards reaches by drawing and
 *     redealing alone (visit, talon_reaches, reach3);
 *  3. moving part of a face-up run (which leaves a face-up card e on top) is played only
 *     together with its purpose: e to the foundation, or another card onto e, at once; and
 *     moving a whole pile off a column with no face-down card (emptying it) only together with
 *     a king moving into it (gen_moves, search: "pairs");
 *  4. positions where some card can never leave its place (every way out needs cards to
 *     move first that can only move after it, directly or through others) are lost
 *     (dead_position);
 *  5. children the table would prune are not made at all (fewer positions generated, the
 *     same positions searched): moving a run straight back where it came from in a pair,
 *     and "sleeping moves" at a set-aside position, whose child a position searched earlier
 *     reaches in one move (search: "Sleeping moves");
 *  6. draw 1 without a redeal limit (any talon card can be reached at any time): every safe
 *     talon card goes up at once (do_autos_out), and a talon card goes on the tableau only
 *     together with a card put onto it (mark_talon_pairs);
 *  7. draw 1 with a redeal limit: the same position is searched first without the limit
 *     (RELAX_SHARE; its "lost" is a proof here too).
 * Rules 1 (the wider part), 3 and 4 are used without foundation returns only where said.
 * Why pairs are sound: take a winning line with the fewest tableau/foundation moves. If it
 * plays such a move M (run R off e onto d; or the whole pile R off column i onto d), look at
 * the first later move that touches e (column i): no move in between uses e (column i) or d
 * (d is covered by R), so M can wait until just before that move; if R's bottom card leaves
 * d first, M was useless and the line was not the shortest. Every card goes to the
 * foundation in a won game, so that first move exists: e to the foundation or a card onto e
 * (a king into column i, only kings go there). Waiting changes nothing else, so a line with
 * M right before its purpose wins too; the search tries exactly those.
 * Hence an exhausted exhaustive search (no node, time, table or depth limit hit) proves the
 * deal lost.
 *
 * Python API: solve(columns, talon, ptr, foundations, redeals_used, draw_count,
 *                   redeal_limit, foundation_return, redeal_reverses, node_limit,
 *                   time_limit, table_bits[, quick_nodes[, layer_bytes[, reduce[, relax]]]])
 *                   -> (status, moves, nodes, closest)
 *   columns: 7 tuples (hidden: bytes, faceup: bytes) of card indexes suit*13+rank-1
 *   talon: bytes, waste bottom..top then stock next..last; ptr = len(waste)
 *   status: 1 won, 0 lost, -1 unknown (a limit was hit)
 *   closest: the lowest estimate of the distance to a win (heuristic 0 below) of any position
 *            the quick pass generated; 0 when won, -1 when the quick pass made none
 *   moves: list of (kind, a, b): 0 draw, 1 redeal, 2 w-f, 3 w-b, 4 a-f, 5 a-b, 6 fa-b
 * SOLVER_DEBUG=1 in the environment prints each pass's statistics to stderr.
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
/* share of the time limit the quick best-first pass may use before the exhaustive search */
#define QUICK_TIME_SHARE 0.4
/* positions the quick pass searches with its first queue alone before it uses both */
#define QUICK_ONE_QUEUE 100000
/* Draw 1 with a redeal limit (no foundation returns): before the exhaustive search proper,
 * the same position is searched without the limit for this share of what is left of the
 * budget. Every line legal under the limit is legal without it, so "lost" there is lost
 * here; a win there that redeals no more than the limit allows is a win here. Without the
 * limit the talon is a set every card of which can be reached at any time, which makes
 * the search far smaller (no layers; talon cards put on the tableau only with a purpose,
 * see mark_talon_pairs). Most deals lost under the limit are lost without it too. */
#define RELAX_SHARE 0.5

static uint8_t RANK_OF[52], SUIT_OF[52], RED_OF[52];
#define RANK(c) (RANK_OF[c])
#define SUIT(c) (SUIT_OF[c])
#define RED(c) (RED_OF[c])

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
    uint8_t orient;                /* the talon is stored reversed (odd number of reversing redeals) */
    uint64_t ch1[NCOL], ch2[NCOL]; /* incremental hashes of each column (cards, places, face-down count) */
    uint64_t th1, th2;             /* of the cards left in the talon (their order never changes but by reversal) */
} St;

typedef struct {
    uint8_t kind, a, b, q, pos, k;
    uint8_t mk;      /* DFS: MK_PARTIAL / MK_EMPTY moves are played only with their purpose */
    int16_t score;
} Mv;

/* Kinds of moves the exhaustive search plays only as the first half of a pair (see
 * gen_moves, mark_talon_pairs and search): */
enum { MK_FREE = 0, MK_PARTIAL = 1, MK_EMPTY = 2, MK_TALON = 3 };

typedef struct {
    int dc;          /* draw count */
    int limit;       /* redeal limit, -1 unlimited */
    int fret;        /* foundation return */
    int reverses;    /* redeal puts the waste back reversed (as GameState does) */
} Rules;

typedef struct {
    St s;
    int nmv, cur, nauto;
    int pend;        /* -1, or the column whose purpose the next move must serve */
    int32_t tid;     /* layered search: the trie node of the line to this frame, -1 if not made yet */
    Mv mv[MAXMV];
    Mv autos[52];
} Frame;

typedef struct {
    uint64_t *keys; /* pairs: a, b (b low 16 bits: waste size << 8 | redeals used) */
    uint64_t mask;
    uint64_t count, cap;
    int full;
    int ptr_free;   /* draw 1, waste not reversed: the key leaves out the waste size (see visit) */
    int unlimited;  /* no redeal limit */
    int set3;       /* draw 3, no redeal limit, waste not reversed: the entry is a set of waste sizes */
    long long again, again_r;
} Table;

static inline int fits(int c, int onto) { return RANK(c) + 1 == RANK(onto) && RED(c) != RED(onto); }

/* Is card c the next one of its foundation? */
static inline int next_up(const St *s, int c) { return s->f[SUIT(c)] + 1 == RANK(c); }

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

/* Zobrist keys: two independent 64-bit keys per (place in a column, card), per face-down
 * count, and per talon card, filled from a fixed generator at import. */
static uint64_t Z1[MAXCOL][52], Z2[MAXCOL][52], ZH1[MAXCOL + 1], ZH2[MAXCOL + 1], ZT1[52], ZT2[52];

static uint64_t splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void zobrist_init(void) {
    for (int c = 0; c < 52; c++) {
        RANK_OF[c] = (uint8_t)(c % 13 + 1);
        SUIT_OF[c] = (uint8_t)(c / 13);
        RED_OF[c] = SUIT_OF[c] == 1 || SUIT_OF[c] == 2;
    }
    uint64_t x = 0x5eed5eed12345678ULL;
    for (int p = 0; p < MAXCOL; p++)
        for (int c = 0; c < 52; c++) { Z1[p][c] = splitmix(&x); Z2[p][c] = splitmix(&x); }
    for (int h = 0; h <= MAXCOL; h++) { ZH1[h] = splitmix(&x); ZH2[h] = splitmix(&x); }
    for (int c = 0; c < 52; c++) { ZT1[c] = splitmix(&x); ZT2[c] = splitmix(&x); }
}

/* Compute the incremental hashes of a state from scratch. */
static void rehash(St *s) {
    for (int i = 0; i < NCOL; i++) {
        uint64_t a = ZH1[s->h[i]], b = ZH2[s->h[i]];
        for (int k = 0; k < s->n[i]; k++) { a ^= Z1[k][s->cards[i][k]]; b ^= Z2[k][s->cards[i][k]]; }
        s->ch1[i] = a; s->ch2[i] = b;
    }
    s->th1 = s->th2 = 0;
    for (int j = 0; j < s->nt; j++) { s->th1 ^= ZT1[s->talon[j]]; s->th2 ^= ZT2[s->talon[j]]; }
}

/* A 120-bit key of the position, the same for any order of the columns (a sum over them). */
static void hash_state(const St *s, int with_ptr, uint64_t *ka, uint64_t *kb) {
    uint64_t a = 0, b = 0;
    for (int i = 0; i < NCOL; i++) {
        a += mix64(s->ch1[i]);
        b += mix64b(s->ch2[i] ^ 0x243f6a8885a308d3ULL);
    }
    uint64_t p = (uint64_t)(with_ptr ? s->ptr + 1 : 0) | ((uint64_t)s->orient << 8);
    a ^= mix64b(s->th1 + p * 0x517cc1b727220a95ULL + 0x1234567ULL);
    b ^= mix64(s->th2 + p * 0x2545f4914f6cdd1dULL + 0x7654321ULL);
    *ka = a | 1;
    *kb = b & ~(uint64_t)0xFFFFFFFF;
}

/* Does a visited talon state (p0 cards in the waste, r0 redeals used) reach the new one
 * (p, r) by drawing and turning the waste over, with the rest of the position the same?
 * Only asked when t->ptr_free (draw 1, waste not reversed by a redeal): drawing takes the
 * waste size from p0 to any larger value in the same pass, and a redeal (allowed while
 * r0 + 1 <= r <= limit, or always when unlimited) makes any waste size reachable. */
static inline int talon_reaches(const Table *t, int p0, int r0, int p, int r, int nt) {
    if (t->unlimited) return p0 <= p || nt > 0;
    return (r0 <= r && p0 <= p) || (r0 + 1 <= r && nt > 0);
}

/* The transposition table. Returns 1 to prune: the position, or (draw 1) one that reaches it
 * by drawing and redealing alone, was visited before. Sound because the search is complete
 * for any state whose every line can be played from an already visited state too: if a won
 * position were reachable, the visited position nearest to a win (fewest tableau and
 * foundation moves to go; draws free) would have a successor nearer still, and that one is
 * either visited or reachable from a visited one, which is then nearer: a contradiction.
 * In draw 1 (no reversal) the entry of a position keyed without its waste size keeps one
 * pair (p, r), the visited waste size and redeals: a pair with fewer redeals reaches every
 * pair with more (draw to the end, redeal, draw), so one pair covers all visited ones.
 * In draw 3 with no redeal limit (no reversal) the entry keeps the set of waste sizes that
 * the visited ones reach: from p, drawing gives p+3, p+6, ... and the whole talon, and a
 * redeal 0, 3, 6, ...; a new waste size in that set is pruned, any other is added to it
 * with all it reaches. (The key then has 95 bits, the entry's low 32 bits being data.) */
static uint32_t reach3(int p, int nt) {
    uint32_t m = 1u << nt;
    for (int x = p; x < nt; x += 3) m |= 1u << x;
    if (nt > 0)
        for (int x = 0; x < nt; x += 3) m |= 1u << x;
    return m;
}

/* The table's entry for the key (a, b): the one holding it, or the empty one where it goes
 * (open addressing, linear probing; the table is never allowed to fill up). */
static uint64_t *table_slot(const Table *t, uint64_t a, uint64_t b) {
    uint64_t i = (a ^ (a >> 29)) & t->mask;
    for (;;) {
        uint64_t *e = &t->keys[2 * i];
        if (e[0] == 0 || (e[0] == a && (e[1] & ~(uint64_t)0xFFFFFFFF) == b)) return e;
        i = (i + 1) & t->mask;
    }
}

static int visit(Table *t, const St *s) {
    uint64_t a, b;
    hash_state(s, !t->ptr_free && !t->set3, &a, &b);
    uint64_t *e = table_slot(t, a, b);
    int p = t->ptr_free ? s->ptr : 0;
    int r = t->unlimited ? 0 : s->redeals;
    uint64_t data = t->set3 ? reach3(s->ptr, s->nt) : ((uint64_t)(p << 8) | (uint64_t)r);
    if (e[0] == 0) {
        if (t->count >= t->cap) { t->full = 1; return 1; }
        e[0] = a; e[1] = b | data;
        t->count++;
        return 0;
    }
    if (t->set3) {
        if (e[1] >> s->ptr & 1) return 1;
        e[1] |= data;
        t->again++;
        return 0;
    }
    int r0 = (int)(e[1] & 0xFF), p0 = (int)((e[1] >> 8) & 0xFF);
    if (t->ptr_free ? talon_reaches(t, p0, r0, p, r, s->nt) : r0 <= r) return 1;
    /* not covered: the new pair covers the old one (fewer redeals), keep it */
    e[1] = b | data;
    t->again++;
    if (r < r0) t->again_r++;
    return 0;
}

static void table_init(Table *t, int table_bits, const Rules *R) {
    t->mask = ((uint64_t)1 << table_bits) - 1;
    t->cap = (t->mask + 1) / 4 * 3;
    t->count = 0; t->full = 0; t->again = 0; t->again_r = 0;
    t->ptr_free = R->dc == 1 && !R->reverses;
    t->set3 = R->dc == 3 && !R->reverses && R->limit < 0;
    t->unlimited = R->limit < 0;
    t->keys = calloc((size_t)(t->mask + 1) * 2, sizeof(uint64_t));
}

static inline void flip(St *s, int c) {
    if (s->n[c] > 0 && s->h[c] == s->n[c]) {
        int h = s->h[c]--;
        s->ch1[c] ^= ZH1[h] ^ ZH1[h - 1];
        s->ch2[c] ^= ZH2[h] ^ ZH2[h - 1];
    }
}

static inline void col_push(St *s, int j, uint8_t c) {
    int k = s->n[j]++;
    s->cards[j][k] = c;
    s->ch1[j] ^= Z1[k][c];
    s->ch2[j] ^= Z2[k][c];
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
        s->orient ^= 1;
    }
    int idx = pos - 1;
    uint8_t c = s->talon[idx];
    memmove(&s->talon[idx], &s->talon[idx + 1], s->nt - idx - 1);
    s->nt--;
    s->th1 ^= ZT1[c];
    s->th2 ^= ZT2[c];
    s->ptr = idx;
    if (R->limit >= 0) s->redeals += q;  /* unlimited: the count never matters (and cannot overflow) */
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
        col_push(s, m->b, c);
        break;
    case MV_C2F:
        k = --s->n[m->a];
        c = s->cards[m->a][k];
        s->ch1[m->a] ^= Z1[k][c];
        s->ch2[m->a] ^= Z2[k][c];
        s->f[SUIT(c)]++;
        flip(s, m->a);
        break;
    case MV_C2C:
        for (k = m->k; k < s->n[m->a]; k++) {
            c = s->cards[m->a][k];
            s->ch1[m->a] ^= Z1[k][c];
            s->ch2[m->a] ^= Z2[k][c];
            col_push(s, m->b, c);
        }
        s->n[m->a] = m->k;
        flip(s, m->a);
        break;
    case MV_F2C:
        c = (uint8_t)(m->a * 13 + s->f[m->a] - 1);
        s->f[m->a]--;
        col_push(s, m->b, c);
        break;
    }
}

typedef struct { int *v; int n, cap; } Out;
static int emit(Out *o, const St *s, const Mv *m, const Rules *R);

/* Is moving c (the next card of its foundation) there at once safe: does some winning line,
 * if any exists, play it now? Without foundation returns, c (rank r) is only ever useful in
 * the tableau under a card B of the other colour and rank r-1, and B only under a card R2 of
 * c's colour and rank r-2 (the one of c's suit is on the foundation already); nothing can go
 * on R2 when the other colour's foundations are at r-2 or more. With both of those at r-2
 * or more and the other foundation of c's colour at r-3 or more, B and R2 can each go to the
 * foundation whenever they are free to move, so a winning line that parks B (with R2) on c
 * can play R2 and B to the foundation instead, and lose nothing by having played c now.
 * With foundation returns the narrower classic rule is used: both cards that could go on c
 * are on the foundations already (r-1 or more on both foundations of the other colour). */
static inline int safe_up(const St *s, int c, int fret) {
    int r = RANK(c);
    if (r <= 2) return 1;
    int o1 = RED(c) ? 0 : 1, o2 = RED(c) ? 3 : 2;            /* the other colour's suits */
    int same = SUIT(c) == 1 ? 2 : SUIT(c) == 2 ? 1 : SUIT(c) == 0 ? 3 : 0;  /* c's colour, other suit */
    if (s->f[o1] >= r - 1 && s->f[o2] >= r - 1) return 1;
    if (fret) return 0;
    return s->f[o1] >= r - 2 && s->f[o2] >= r - 2 && s->f[same] >= r - 3;
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
                if (next_up(s, c) && safe_up(s, c, R->fret)) {
                    Mv m = {MV_C2F, (uint8_t)i, 0, 0, 0, 0, MK_FREE, 0};
                    if (out) emit(out, s, &m, R);
                    apply(s, &m, R);
                    F->autos[F->nauto++] = m;
                    again = 1;
                }
            }
        }
        if (R->dc == 1 && s->ptr > 0) {
            int c = s->talon[s->ptr - 1];
            if (next_up(s, c) && safe_up(s, c, R->fret)) {
                Mv m = {MV_T2F, 0, 0, 0, s->ptr, 0, MK_FREE, 0};
                if (out) emit(out, s, &m, R);
                apply(s, &m, R);
                F->autos[F->nauto++] = m;
                again = 1;
            }
        }
        if (R->dc == 1 && R->limit < 0 && !R->reverses && !again) {
            /* without a redeal limit every talon card can be brought to the top of the waste at
             * any time, so the safe-move argument holds for each of them, not only the top one:
             * draw on to it (or redeal and draw to it) and play it up */
            for (int idx = 0; idx < s->nt; idx++) {
                int c = s->talon[idx];
                if (next_up(s, c) && safe_up(s, c, R->fret)) {
                    Mv m = {MV_T2F, 0, 0, (uint8_t)(idx + 1 >= s->ptr ? 0 : 1), (uint8_t)(idx + 1), 0, MK_FREE, 0};
                    if (out) emit(out, s, &m, R);
                    apply(s, &m, R);
                    F->autos[F->nauto++] = m;
                    again = 1;
                    break;
                }
            }
        }
    }
}

static void do_autos(Frame *F, const Rules *R) { do_autos_out(F, R, NULL); }

/* A position no line can win (without foundation returns). Call a tableau card a "blocker"
 * when it is not a king and cannot ride on the card below it: it is face down, or the
 * lowest face-up card of its column (a face-down card never moves; once turned, the card
 * under it is face down). A blocker leaves its place only by itself, and only
 *  (a) for the foundation: after every lower card of its suit got there, so after those
 *      cards and every blocker above them had left; or
 *  (b) onto a card P one rank higher of the other colour: P must be in play and on top,
 *      so every blocker above P has left first; never if P is on a foundation, or lies
 *      below the blocker in its own column (covered by it until it leaves).
 * These are necessary conditions, and each mentions only blockers that left before. So the
 * blockers that can ever leave are among the least set closed under "a blocker joins once
 * (a) or (b) holds for it with the blockers already in": in any real line, each blocker
 * that leaves finds the ones that left before it in that set. A blocker outside the set
 * never leaves, never reaches the foundation, and the position is lost. (The simplest case:
 * a card both of whose higher partners are on the foundations, lying on a lower card of its
 * own suit.) Kings count as free (they may go to an empty column), and so do cards riding
 * on others: that only makes the set larger, so the test stays sound. */
static int dead_position(const St *s) {
    int8_t col[52], pos[52];
    memset(col, -1, sizeof col);
    uint64_t above[NCOL + 1][MAXCOL + 1];   /* blockers above place k of column i */
    uint64_t blockers = 0;
    for (int i = 0; i < NCOL; i++) {
        int last = s->h[i] < s->n[i] ? s->h[i] : s->n[i] - 1;
        for (int k = 0; k < s->n[i]; k++) {
            int c = s->cards[i][k];
            col[c] = (int8_t)i; pos[c] = (int8_t)k;
            if (k <= last && RANK(c) != 13) blockers |= (uint64_t)1 << c;
        }
        uint64_t acc = 0;
        above[i][s->n[i]] = 0;
        for (int k = s->n[i] - 1; k >= 0; k--) {
            above[i][k] = acc;   /* strictly above place k */
            int c = s->cards[i][k];
            if (blockers >> c & 1) acc |= (uint64_t)1 << c;
        }
    }
    if (!blockers) return 0;
    /* for each blocker: what (a) needs, and what each usable partner for (b) needs */
    uint64_t need_a[52], need_b[52][2];
    int nb[52];
    int list[52], nl = 0;
    /* (a) for the card of suit su and rank r: the blockers among and above its lower cards
     * not yet on the foundation, an OR over ranks f+1..r-1 (built up suit by suit) */
    uint64_t lower[52];
    for (int su = 0; su < 4; su++) {
        uint64_t acc = 0;
        for (int rr = 1; rr <= 13; rr++) {
            int l = su * 13 + rr - 1;
            lower[l] = acc;
            if (rr > s->f[su] && col[l] >= 0)   /* not on the foundation, not in the stock or waste */
                acc |= above[(int)col[l]][(int)pos[l]] | (blockers & ((uint64_t)1 << l));
        }
    }
    for (int z = 0; z < 52; z++) {
        if (!(blockers >> z & 1)) continue;
        list[nl++] = z;
        int r = RANK(z);
        need_a[z] = lower[z];
        nb[z] = 0;
        for (int ps = 0; ps < 4; ps++) {
            if (((ps == 1 || ps == 2) ? 1 : 0) == RED(z)) continue;
            int p = ps * 13 + r;   /* rank r + 1 of suit ps */
            if (s->f[ps] >= r + 1) continue;                       /* on the foundation */
            if (col[p] == col[z] && pos[p] < pos[z]) continue;       /* covered by z */
            need_b[z][nb[z]++] = col[p] < 0 ? 0 : above[(int)col[p]][(int)pos[p]];
        }
    }
    uint64_t left = 0;
    for (int changed = 1; changed;) {
        changed = 0;
        for (int x = 0; x < nl; x++) {
            int z = list[x];
            if (left >> z & 1) continue;
            int ok = (need_a[z] & ~left) == 0;
            for (int y = 0; y < nb[z] && !ok; y++) ok = (need_b[z][y] & ~left) == 0;
            if (ok) { left |= (uint64_t)1 << z; changed = 1; }
        }
    }
    return left != blockers;
}

static inline int is_won(const St *s) { return s->f[0] == 13 && s->f[1] == 13 && s->f[2] == 13 && s->f[3] == 13; }

static inline void add(Frame *F, uint8_t kind, int a, int b, int q, int pos, int k, int score) {
    if (F->nmv >= MAXMV) return;
    Mv *m = &F->mv[F->nmv++];
    m->kind = kind; m->a = (uint8_t)a; m->b = (uint8_t)b; m->q = (uint8_t)q; m->pos = (uint8_t)pos;
    m->k = (uint8_t)k; m->mk = MK_FREE; m->score = (int16_t)score;
}

/* only_col >= 0: only a move onto that column (the second half of a pair) */
static void talon_card_moves(Frame *F, int c, int q, int pos, int empty_col, int only_col) {
    const St *s = &F->s;
    /* the fewer cards drawn (and no redeal) the sooner: a position is then reached first with
     * the least of the talon used up, and seldom searched again with a better talon */
    int cost = q ? 60 + s->nt - s->ptr + pos : pos - s->ptr;
    if (only_col < 0 && next_up(s, c)) add(F, MV_T2F, 0, 0, q, pos, 0, 60 - cost);
    for (int j = 0; j < NCOL; j++) {
        if (only_col >= 0 && j != only_col) continue;
        if (s->n[j] > s->h[j]) {
            if (fits(c, s->cards[j][s->n[j] - 1])) add(F, MV_T2C, 0, j, q, pos, 0, 40 - cost);
        }
    }
    if (RANK(c) == 13 && empty_col >= 0 && (only_col < 0 || only_col == empty_col))
        add(F, MV_T2C, 0, empty_col, q, pos, 0, 35 - cost);
}

static int king_wants_column(const St *s) {
    for (int i = 0; i < NCOL; i++)
        for (int k = 0; k < s->n[i]; k++)
            if (RANK(s->cards[i][k]) == 13 && (k > 0 || s->h[i] > 0)) return 1;
    for (int j = 0; j < s->nt; j++)
        if (RANK(s->talon[j]) == 13) return 1;
    return 0;
}

/* restricted: the quick first pass leaves out moves that rarely help (incomplete).
 * pend >= 0 (exhaustive search only): the position is the middle of a pair begun by a
 * MK_PARTIAL or MK_EMPTY move out of column pend; only the moves that serve its purpose
 * are generated: a card onto column pend, or (after a partial move) its top card to the
 * foundation. */
static void gen_moves(Frame *F, const Rules *R, int restricted, int pend) {
    const St *s = &F->s;
    F->nmv = 0;
    F->cur = 0;
    int empty_col = -1;
    if (pend >= 0 && s->n[pend] == 0) empty_col = pend;
    else
        for (int j = 0; j < NCOL; j++)
            if (s->n[j] == 0) { empty_col = j; break; }
    int kings = restricted ? king_wants_column(s) : 1;
    /* where each face-up card lies; and which cards some column top (or an empty column) takes */
    int8_t loccol[52], locpos[52];
    memset(loccol, -1, sizeof loccol);
    uint64_t want = 0;
    for (int i = 0; i < NCOL; i++) {
        for (int k = s->h[i]; k < s->n[i]; k++) { loccol[s->cards[i][k]] = (int8_t)i; locpos[s->cards[i][k]] = (int8_t)k; }
        if (pend >= 0 && i != pend) continue;
        if (s->n[i] > s->h[i]) {
            int d = s->cards[i][s->n[i] - 1], r = RANK(d);
            if (r > 1) want |= (RED(d) ? (1ULL << (r - 2)) | (1ULL << (39 + r - 2)) : (1ULL << (13 + r - 2)) | (1ULL << (26 + r - 2)));
        }
    }
    if (empty_col >= 0) want |= (1ULL << 12) | (1ULL << 25) | (1ULL << 38) | (1ULL << 51);
    /* tableau moves */
    for (int i = 0; i < NCOL; i++) {
        if (s->n[i] <= s->h[i]) continue;
        int top = s->cards[i][s->n[i] - 1];
        if (next_up(s, top) && (pend < 0 || pend == i)) {
            int sc = 50 + (s->n[i] - 1 == s->h[i] && s->h[i] > 0 ? 60 + s->h[i] : 0);
            add(F, MV_C2F, i, 0, 0, 0, 0, sc);
        }
        int base = s->h[i];
        for (int j = 0; j < NCOL; j++) {
            if (j == i || (pend >= 0 && j != pend)) continue;
            if (s->n[j] > s->h[j]) {
                int dst = s->cards[j][s->n[j] - 1], r = RANK(dst);
                if (r == 1) continue;
                int k = -1;
                for (int su = 0; su < 4; su++) {
                    int c = su * 13 + r - 2;
                    if (RED(c) != RED(dst) && loccol[c] == i) { k = locpos[c]; break; }
                }
                if (k < 0) continue;
                int sc;
                if (k == base && s->h[i] > 0) sc = 100 + s->h[i] * 2;
                else if (k == base) {
                    if (!kings) continue;
                    sc = 30;
                } else {
                    int ex = s->cards[i][k - 1];
                    int up = next_up(s, ex);
                    if (restricted && !up) continue;
                    sc = up ? 45 : -10;
                }
                add(F, MV_C2C, i, j, 0, 0, k, sc);
                if (pend < 0) {
                    if (k > base) F->mv[F->nmv - 1].mk = MK_PARTIAL;
                    else if (s->h[i] == 0) F->mv[F->nmv - 1].mk = MK_EMPTY;
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
                if ((want >> c & 1) || (pend < 0 && next_up(s, c)))
                    talon_card_moves(F, c, q, p, empty_col, pend);
            }
        }
    }
    if (R->fret) {
        for (int su = 0; su < 4; su++) {
            if (!s->f[su]) continue;
            int c = su * 13 + s->f[su] - 1;
            for (int j = 0; j < NCOL; j++) {
                if (pend >= 0 && j != pend) continue;
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

/* Draw 1 without a redeal limit (and without foundation returns), a talon card y put on the
 * tableau is played only together with its purpose, a card onto y at once (MK_TALON; the
 * second half is generated with pend = y's column). Why that is sound: every talon card can
 * be brought to the top of the waste at any time (draw on, redeal as often as needed), so in
 * a winning line with the fewest tableau/foundation moves that puts y on d, look at the
 * first later move that touches y: no move in between touches d (y covers it) or needs y,
 * and every talon card such a move takes can be reached with y still in the talon, so the
 * move of y can wait until just before it. That move is not y going on (to the foundation or
 * onto another card: y could have gone there from the talon, one move fewer), and it
 * exists (every card reaches the foundation in a won game): it is a card onto y. A king put
 * into an empty column is the same with "a queen onto it". With a redeal limit (or draw 3)
 * waiting can cost a redeal (or change which cards the draws show), so it is not used. */
static void mark_talon_pairs(Frame *F, const Rules *R) {
    if (R->dc != 1 || R->limit >= 0 || R->fret) return;
    for (int x = 0; x < F->nmv; x++)
        if (F->mv[x].kind == MV_T2C) F->mv[x].mk = MK_TALON;
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

/* ---- the layered search: positions after a redeal wait for a later layer ----
 * With a redeal limit, a visited position covers the same cards reached with more redeals
 * used, and in draw 1 with more cards in the waste (visit). A depth-first search that
 * redeals (or draws on) early often meets a position first with a worse talon than it needs,
 * and must search it, and everything below it, again when it meets it with a better one. So
 * the exhaustive search goes in layers: a move that redeals, or in draw 1 draws at least one
 * card before it plays, is played, its position entered in the table, and set aside; the
 * layer's search goes on without it. When a layer is exhausted, the set-aside position with
 * the fewest redeals used and, of those, the most cards left to draw (d = talon - waste) is
 * searched next, only if its table entry is still its own (a position met later with a better
 * talon replaced the entry and is searched, or set aside, in its own right; it reaches all
 * that the set-aside one does). In draw 1 every other move keeps d (taking the waste's top
 * card shortens both) and the redeal count, so all positions searched from one set-aside
 * position share (redeals, d), the layers come in the order of the covering relation, and
 * no position is searched twice. Nothing is left out, only reordered, so the completeness
 * argument of visit() stands. If the memory for set-aside positions runs out, the search
 * goes on in the plain depth-first order (set-aside positions still come later): again
 * only an order. The lines are kept as a trie (one node per move that has a set-aside
 * position below it) so that a win found in a later layer can be written out from the start. */
typedef struct { uint32_t parent; uint8_t kind, a, b, q, pos, k, mk; } TNode;
typedef struct { TNode *v; uint32_t n, cap; } Trie;
#define MAXSLEEP 16   /* sleeping moves kept with a set-aside position (two bytes each) */
#define PACK (72 + 1 + 2 * MAXSLEEP)   /* room for a set-aside position: n and h of each column (a byte each), talon
                     size, waste size, redeals, orientation, foundations (two bytes), the cards
                     left (at most 52), the trie node, the sleeping moves and their count,
                     the length */
typedef struct { uint8_t *v; size_t n, cap; } Bucket;
typedef struct {
    Trie tr;
    Bucket *b;       /* one per redeal count and waste size */
    int nb;
    size_t bytes, max_bytes;
} Layers;

static int32_t trie_add(Layers *L, uint32_t parent, const Mv *m) {
    Trie *t = &L->tr;
    if (t->n >= t->cap) {
        uint32_t nc = t->cap ? t->cap * 2 : 4096;
        if (L->bytes + (size_t)(nc - t->cap) * sizeof(TNode) > L->max_bytes) return -1;
        TNode *nv = realloc(t->v, sizeof(TNode) * nc);
        if (!nv) return -1;
        L->bytes += (size_t)(nc - t->cap) * sizeof(TNode);
        t->v = nv; t->cap = nc;
    }
    TNode *x = &t->v[t->n];
    x->parent = parent; x->kind = m->kind; x->a = m->a; x->b = m->b; x->q = m->q; x->pos = m->pos;
    x->k = m->k; x->mk = m->mk;
    return (int32_t)t->n++;
}

/* The trie node of frame d, made (with those below it) if need be. */
static int32_t frame_tid(Frame *fr, int d, Layers *L) {
    int d0 = d;
    while (fr[d0].tid < 0) d0--;   /* frame 0 always has one */
    for (int x = d0 + 1; x <= d; x++) {
        int32_t id = trie_add(L, (uint32_t)fr[x - 1].tid, &fr[x - 1].mv[fr[x - 1].cur - 1]);
        if (id < 0) return -1;
        fr[x].tid = id;
    }
    return fr[d].tid;
}

static int layer_push(Layers *L, const St *s, uint32_t tid, const uint8_t *sleep, int nsleep) {
    Bucket *b = &L->b[s->redeals * (MAXTALON + 1) + MAXTALON - (s->nt - s->ptr)];
    if (b->n + PACK > b->cap) {
        size_t nc = b->cap ? b->cap * 2 : (size_t)PACK * 1024;
        if (L->bytes + (nc - b->cap) > L->max_bytes) return -1;
        uint8_t *nv = realloc(b->v, nc);
        if (!nv) return -1;
        L->bytes += nc - b->cap;
        b->v = nv; b->cap = nc;
    }
    uint8_t *o = b->v + b->n;
    int w = 0;
    for (int i = 0; i < NCOL; i++) o[w++] = (uint8_t)(s->n[i] | s->h[i] << 5);
    o[w++] = s->nt; o[w++] = s->ptr; o[w++] = s->redeals; o[w++] = s->orient;
    o[w++] = (uint8_t)(s->f[0] | s->f[1] << 4); o[w++] = (uint8_t)(s->f[2] | s->f[3] << 4);
    for (int i = 0; i < NCOL; i++) { memcpy(o + w, s->cards[i], s->n[i]); w += s->n[i]; }
    memcpy(o + w, s->talon, s->nt); w += s->nt;
    memcpy(o + w, &tid, 4); w += 4;
    memcpy(o + w, sleep, (size_t)(2 * nsleep)); w += 2 * nsleep;
    o[w++] = (uint8_t)nsleep;
    o[w] = (uint8_t)w;   /* the record's length, last, to take it off the end */
    b->n += (size_t)w + 1;
    return 0;
}

/* Take the last set-aside position with the fewest redeals, and of those the most cards
 * left to draw (the order in which positions with the same cards cover one another, so none
 * is searched twice); 0 when there is none. */
static int layer_pop(Layers *L, St *s, uint32_t *tid, uint8_t *sleep, int *nsleep) {
    for (int r = 0; r < L->nb; r++) {
        Bucket *b = &L->b[r];
        if (b->n == 0) continue;
        int len = b->v[b->n - 1];
        b->n -= (size_t)len + 1;
        const uint8_t *o = b->v + b->n;
        int w = 0;
        memset(s, 0, sizeof *s);
        for (int i = 0; i < NCOL; i++) { s->n[i] = o[w] & 31; s->h[i] = o[w] >> 5; w++; }
        s->nt = o[w++]; s->ptr = o[w++]; s->redeals = o[w++]; s->orient = o[w++];
        s->f[0] = o[w] & 15; s->f[1] = o[w] >> 4; w++;
        s->f[2] = o[w] & 15; s->f[3] = o[w] >> 4; w++;
        for (int i = 0; i < NCOL; i++) { memcpy(s->cards[i], o + w, s->n[i]); w += s->n[i]; }
        memcpy(s->talon, o + w, s->nt); w += s->nt;
        memcpy(tid, o + w, 4); w += 4;
        *nsleep = o[len - 1];
        memcpy(sleep, o + w, (size_t)(2 * *nsleep));
        rehash(s);
        return 1;
    }
    return 0;
}

static void layers_free(Layers *L) {
    free(L->tr.v);
    if (L->b)
        for (int r = 0; r < L->nb; r++) free(L->b[r].v);
    free(L->b);
}

/* Is the table entry of s still the one s made when it was set aside? */
static int table_own(const Table *t, const St *s) {
    uint64_t a, b;
    hash_state(s, !t->ptr_free && !t->set3, &a, &b);
    int p = t->ptr_free ? s->ptr : 0;
    int r = t->unlimited ? 0 : s->redeals;
    const uint64_t *e = table_slot(t, a, b);
    return e[0] != 0 && (int)((e[1] >> 8) & 0xFF) == p && (int)(e[1] & 0xFF) == r;
}

/* Write out the line of moves (with the safe moves after each, as the search plays them). */
static int emit_line(const St *start, const Rules *R, const Mv *moves, int nm, Out *out) {
    Frame *F = malloc(sizeof(Frame));
    if (!F) return -1;
    F->s = *start;
    for (int i = 0; i < NCOL; i++) flip(&F->s, i);
    int r = 0;
    out->n = 0;
    do_autos_out(F, R, out);
    for (int x = 0; x < nm; x++) {
        r |= emit(out, &F->s, &moves[x], R);
        apply(&F->s, &moves[x], R);
        if (moves[x].mk == MK_FREE) do_autos_out(F, R, out);
    }
    free(F);
    return r;
}

/* After the talon card at index i is taken (and the one at index skip, if >= 0, taken before),
 * is the new top of the waste the next card of its foundation? */
static inline int waste_top_up(const St *s, int i, int skip) {
    int w = i - 1;
    if (w == skip) w--;
    return w >= 0 && next_up(s, s->talon[w]);
}

/* status: 1 won, 0 lost, -1 unknown; -2 out of memory. reduce = 0 makes every child that
 * rule 5 would leave out (for tests). */
static int search(const St *start, const Rules *R, long long node_limit, double time_limit, int table_bits,
                  long long layer_bytes, int restricted, int reduce, long long *nodes_out, Out *out) {
    Frame *fr = malloc(sizeof(Frame) * (MAXDEPTH + 1));
    Table t;
    table_init(&t, table_bits, R);
    /* layers (see above) where redeals are counted; the set-aside positions and the trie take
     * at most layer_bytes (0: as much as the table) */
    Layers L;
    memset(&L, 0, sizeof L);
    int layered = !restricted && R->limit >= 0;   /* 1: on; 2: no room to set more aside */
    if (layered) {
        L.nb = ((R->limit > start->redeals ? R->limit : start->redeals) + 1) * (MAXTALON + 1);
        L.b = calloc((size_t)L.nb, sizeof(Bucket));
        L.max_bytes = layer_bytes > 0 ? (size_t)layer_bytes : (size_t)(t.mask + 1) * 16;
        Mv root = {0};
        if (!L.b || trie_add(&L, 0, &root) != 0) layered = 0;   /* no room at all: the plain order */
    }
    if (!fr || !t.keys) { free(fr); free(t.keys); layers_free(&L); return -2; }
    double deadline = time_limit > 0 ? now_s() + time_limit : 0;
    long long nodes = 0;
    int aborted = 0, found = -1, depth = 0;
    long long ndead = 0, nlayer = 0, nstale = 0, nslept = 0, ntslept = 0;
    Mv rsleep[MAXSLEEP];   /* the column moves asleep at the layer's first position (fr[0]) */
    int nrsleep = 0;

    fr[0].s = *start;
    for (int i = 0; i < NCOL; i++) flip(&fr[0].s, i);
    do_autos(&fr[0], R);
    fr[0].tid = 0;
    if (is_won(&fr[0].s)) found = 0;
    else {
        visit(&t, &fr[0].s);
        fr[0].pend = -1;
        if (!R->fret && dead_position(&fr[0].s)) depth = -1;  /* lost as it stands */
        else {
            gen_moves(&fr[0], R, restricted, -1);
            if (reduce && !restricted) mark_talon_pairs(&fr[0], R);
        }
    }
    while (found < 0) {
        if (depth < 0) {
            /* the layer is exhausted: the next set-aside position with the fewest redeals */
            if (!layered) break;
            uint32_t tid;
            uint8_t sleep[2 * MAXSLEEP];
            int nsleep;
            nrsleep = 0;
            if (!layer_pop(&L, &fr[0].s, &tid, sleep, &nsleep)) break;
            if (!table_own(&t, &fr[0].s)) { nstale++; continue; }
            if (!R->fret && dead_position(&fr[0].s)) { ndead++; continue; }
            nlayer++;
            fr[0].tid = (int32_t)tid;
            fr[0].pend = -1;
            fr[0].nauto = 0;
            gen_moves(&fr[0], R, 0, -1);
            if (nsleep) {
                /* the moves asleep here (see "Sleeping moves" where positions are set aside): a
                 * column move by its columns and place, a talon move by its card and column */
                int w = 0;
                for (int x = 0; x < fr[0].nmv; x++) {
                    const Mv *cm = &fr[0].mv[x];
                    int asleep = 0;
                    if (cm->kind == MV_C2C && cm->mk == MK_FREE)
                        for (int y = 0; y < nsleep && !asleep; y++)
                            asleep = sleep[2 * y] == (cm->a | cm->b << 4) && sleep[2 * y + 1] == cm->k;
                    if (cm->kind == MV_T2C && t.ptr_free)
                        for (int y = 0; y < nsleep && !asleep; y++)
                            asleep = sleep[2 * y] == (0x80 | cm->b) && sleep[2 * y + 1] == fr[0].s.talon[cm->pos - 1];
                    if (asleep) { nslept++; if (cm->kind == MV_T2C) ntslept++; else if (nrsleep < MAXSLEEP) rsleep[nrsleep++] = *cm; continue; }
                    fr[0].mv[w++] = *cm;
                }
                fr[0].nmv = w;
            }
            depth = 0;
            continue;
        }
        Frame *F = &fr[depth];
        if (F->cur >= F->nmv) { depth--; continue; }
        Mv m = F->mv[F->cur++];
        Frame *C = &fr[depth + 1];
        C->s = F->s;
        C->tid = -1;
        apply(&C->s, &m, R);
        nodes++;
        if ((node_limit > 0 && nodes >= node_limit) ||
            (deadline > 0 && (nodes & 1023) == 0 && now_s() > deadline)) { aborted = 1; break; }
        if (m.mk != MK_FREE && !restricted) {
            /* the first half of a pair: no safe moves, no table, only the moves that serve it */
            if (depth + 1 >= MAXDEPTH) { aborted = 1; continue; }
            C->nauto = 0;
            C->pend = m.mk == MK_TALON ? m.b : m.a;
            gen_moves(C, R, 0, C->pend);
            if (reduce) mark_talon_pairs(C, R);   /* a talon card as the purpose has its own */
            /* Moving the same run straight back (from column m.b, from the place it landed)
             * only gives back F's position, which is in the table (it was visited, and an entry
             * is only ever replaced by one that covers it), so that child would be pruned: it
             * is not generated at all. */
            int w = 0;
            for (int x = 0; x < C->nmv; x++) {
                const Mv *cm = &C->mv[x];
                if (reduce && cm->kind == MV_C2C && cm->a == m.b && cm->k == F->s.n[m.b]) continue;
                if (m.mk == MK_TALON && cm->kind == MV_C2F) continue;   /* y going on: dominated */
                C->mv[w++] = *cm;
            }
            C->nmv = w;
            depth++;
            continue;
        }
        C->pend = -1;
        do_autos(C, R);
        if (is_won(&C->s)) { found = depth + 1; break; }
        if (visit(&t, &C->s)) {
            if (t.full) { aborted = 1; break; }
            continue;
        }
        if (layered == 1 && (m.q > 0 || (t.ptr_free && m.pos > F->s.ptr))) {
            /* a redeal: set aside for its layer. Without room for more, the positions already
             * set aside stay, and from now on every position is searched when it is met (the
             * plain order; nothing is lost either way) */
            int32_t tid = frame_tid(fr, depth, &L);
            int32_t id = tid < 0 ? -1 : trie_add(&L, (uint32_t)tid, &m);
            /* Sleeping moves: C = F.m is searched in a later layer, after every move of F has
             * been searched from F in this one. A move X of C is "asleep" (not made) when its
             * child C.X is reached in one move from a position G searched before C, with the
             * same cards and a talon as good (C.X is covered by G's child). That loses no win:
             * take, among the searched winnable positions, one with the fewest moves to a win
             * (safe moves included with the move before them) and, of those, the earliest
             * searched; if the first move of its shortest win were asleep, G would be winnable
             * in no more moves and searched earlier (or covered by one that was: a position
             * covering G has the same cards and is searched in the same layer or an earlier
             * one). Two kinds, both only when m is followed by no safe move:
             *  - a column-to-column move X of F (or one asleep at F, the layer's first
             *    position) that changes no foundation, turns a card that is not the next one of
             *    its foundation (so no safe move follows, at F or at C) and leaves the column m
             *    puts a card on alone: F.X.m and F.m.X are the same position, G = F.X;
             *  - draw 1 (no reversing): m puts talon card y onto a face-up card, and F had a move
             *    putting talon card z onto a face-up card in another column without a redeal,
             *    z before y or m a redeal move, neither card (nor the new top of the waste after
             *    either is taken) the next one of its foundation, so no safe move follows: G =
             *    F.z is searched in this layer or an earlier one (fewer cards left to draw, or
             *    fewer redeals), and G.y has the cards of C.z with no more redeals and no more
             *    cards in the waste (z before y: (y's place - 2, r) against (z's place - 1,
             *    r + 1) or the same; y first, with a redeal: (y's place - 1, r + 1) against
             *    (z's place - 2, r + 1); y after z, with a redeal: (y's place - 2, r) against
             *    anything with r + 1 or more). */
            uint8_t sleep[2 * MAXSLEEP];
            int nsleep = 0;
            if (reduce && F->pend < 0 && C->nauto == 0) {
                int j = m.kind == MV_T2C ? m.b : -1;
                int nr = depth == 0 ? nrsleep : 0;
                for (int x = 0; x < F->nmv + nr && nsleep < MAXSLEEP; x++) {
                    const Mv *X = x < F->nmv ? &F->mv[x] : &rsleep[x - F->nmv];
                    if (X->kind != MV_C2C || X->mk != MK_FREE || X->a == j || X->b == j || X->k == 0) continue;
                    int under = F->s.cards[X->a][X->k - 1];
                    if (next_up(&F->s, under)) continue;
                    sleep[2 * nsleep] = (uint8_t)(X->a | X->b << 4);
                    sleep[2 * nsleep + 1] = X->k;
                    nsleep++;
                }
                if (t.ptr_free && m.kind == MV_T2C && F->s.n[m.b] > F->s.h[m.b] && !next_up(&F->s, F->s.talon[m.pos - 1]))
                    for (int x = 0; x < F->nmv && nsleep < MAXSLEEP; x++) {
                        const Mv *Z = &F->mv[x];
                        if (Z->kind != MV_T2C || Z->q != 0 || Z->pos == m.pos || Z->b == m.b || F->s.n[Z->b] == F->s.h[Z->b]) continue;
                        if (!(m.q > 0 || Z->pos < m.pos)) continue;
                        int iy = m.pos - 1, iz = Z->pos - 1;
                        if (next_up(&F->s, F->s.talon[iz]) || waste_top_up(&F->s, iz, -1) || waste_top_up(&F->s, iz, iy) ||
                            waste_top_up(&F->s, iy, iz)) continue;
                        sleep[2 * nsleep] = (uint8_t)(0x80 | Z->b);
                        sleep[2 * nsleep + 1] = F->s.talon[iz];
                        nsleep++;
                    }
            }
            if (id >= 0 && layer_push(&L, &C->s, (uint32_t)id, sleep, nsleep) == 0) continue;
            layered = 2;   /* full: pops still come, pushes no longer */
        }
        if (!R->fret && dead_position(&C->s)) { ndead++; continue; }
        if (depth + 1 >= MAXDEPTH) { aborted = 1; continue; }
        gen_moves(C, R, restricted, -1);
        if (reduce && !restricted) mark_talon_pairs(C, R);
        depth++;
    }
    int status;
    if (found >= 0) {
        /* the line: the trie's part up to this layer's first position, then the frames' moves */
        status = 1;
        int ntrie = 0;
        for (uint32_t x = (uint32_t)fr[0].tid; x != 0; x = L.tr.v[x].parent) ntrie++;
        Mv *line = malloc(sizeof(Mv) * (size_t)(ntrie + found + 1));
        if (!line) status = -2;
        else {
            int k = ntrie;
            for (uint32_t x = (uint32_t)fr[0].tid; x != 0; x = L.tr.v[x].parent) {
                const TNode *n = &L.tr.v[x];
                Mv mv = {n->kind, n->a, n->b, n->q, n->pos, n->k, n->mk, 0};
                line[--k] = mv;
            }
            for (int d = 0; d < found; d++) line[ntrie + d] = fr[d].mv[fr[d].cur - 1];
            if (emit_line(start, R, line, ntrie + found, out)) status = -2;
            free(line);
        }
    } else {
        status = aborted ? -1 : 0;
        if (restricted && status == 0) status = -1; /* an incomplete search proves nothing */
    }
    *nodes_out = nodes;
    if (getenv("SOLVER_DEBUG")) fprintf(stderr, "dfs: status %d nodes %lld dead %lld again %lld (r %lld) table %llu full %d aborted %d layered %d: %lld searched, %lld stale, %u trie, %zu MB, %lld asleep (%lld talon)\n", status, nodes, ndead, t.again, t.again_r, (unsigned long long)t.count, t.full, aborted, layered, nlayer, nstale, L.tr.n, L.bytes >> 20, nslept, ntslept);
    free(fr);
    free(t.keys);
    layers_free(&L);
    return status;
}


/* ---- greedy best-first search (the quick, incomplete pass) ---- */
typedef struct { St s; int32_t parent; Mv m; } BNode;
typedef struct { int32_t key, idx; } HItem;

/* Two estimates of how far a position is from a win (lower is better), each ordering one of
 * the quick pass's two queues: (0) face-down cards, cards not on the foundations, cards left
 * in the talon and redeals used; (1) the same, plus a charge for every tableau card lying
 * above a lower card of its own suit (it must move before that card can go up) and for every
 * king above another card that is face down or the lowest face-up card of its column (it
 * needs an empty column to move). Neither is needed for soundness: the pass only finds wins. */
static int heuristic(const St *s, int which) {
    int hidden = 0;
    for (int i = 0; i < NCOL; i++) hidden += s->h[i];
    int fsum = s->f[0] + s->f[1] + s->f[2] + s->f[3];
    int v = 4 * hidden + (52 - fsum) * 2 + s->nt + 3 * s->redeals;
    if (which == 1)
        for (int i = 0; i < NCOL; i++) {
            int lowest[4] = {99, 99, 99, 99};   /* the lowest rank of each suit below, in this column */
            for (int k = 0; k < s->n[i]; k++) {
                int c = s->cards[i][k];
                if (lowest[SUIT(c)] < RANK(c)) v += 6;
                else lowest[SUIT(c)] = RANK(c);
                if (RANK(c) == 13 && k > 0 && k <= s->h[i]) v += 2;
            }
        }
    return v;
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
                     int queues, long long *nodes_out, Out *out, int *closest) {
    long long cap = node_limit > 0 ? node_limit + 2 : 2000000;
    if (cap > 4000000) cap = 4000000;
    BNode *nodes = malloc(sizeof(BNode) * cap);
    /* two queues over the same positions, one per estimate, popped in turn (a position is
     * expanded once, from whichever queue reaches it first): wins that either estimate
     * leads to soon are found at about twice their cost */
    HItem *heap = malloc(sizeof(HItem) * (cap * 2 + 32));
    uint8_t *done_ = calloc((size_t)cap, 1);
    int nh2 = 0, turn = 0;
    Frame *F = malloc(sizeof(Frame)), *C = malloc(sizeof(Frame));
    Table t;
    table_init(&t, table_bits, R);
    int status = -1, nh = 0, nn = 0;
    long long count = 0;
    HItem *heap2 = heap ? heap + cap + 16 : NULL;
    if (!nodes || !heap || !done_ || !F || !C || !t.keys) { status = -2; goto done; }
    double deadline = time_limit > 0 ? now_s() + time_limit : 0;
    F->s = *start;
    for (int i = 0; i < NCOL; i++) flip(&F->s, i);
    do_autos(F, R);
    nodes[0].s = F->s; nodes[0].parent = -1;
    if (is_won(&F->s)) { bf_emit_path(nodes, 0, start, R, out, C); status = 1; goto done; }
    nn = 1;
    if (!R->fret && dead_position(&F->s)) goto done;   /* the exhaustive search will say lost at once */
    visit(&t, &F->s);
    int h_root = heuristic(&F->s, 0);
    if (h_root < *closest) *closest = h_root;
    heap_push(heap, &nh, (HItem){h_root, 0});
    if (queues > 1) heap_push(heap2, &nh2, (HItem){heuristic(&F->s, 1), 0});
    while ((nh > 0 || nh2 > 0) && status == -1) {
        turn ^= 1;
        HItem it = (turn && nh > 0) || nh2 == 0 ? heap_pop(heap, &nh) : heap_pop(heap2, &nh2);
        if (done_[it.idx]) continue;
        done_[it.idx] = 1;
        F->s = nodes[it.idx].s;
        gen_moves(F, R, 1, -1);
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
            if (visit(&t, &C->s)) { if (t.full) { status = -3; break; } continue; }
            if (!R->fret && dead_position(&C->s)) continue;
            if (nn >= cap - 1 || (node_limit > 0 && count >= node_limit)) { status = -3; break; }
            nodes[nn].s = C->s; nodes[nn].parent = it.idx; nodes[nn].m = F->mv[x];
            int h0 = heuristic(&C->s, 0);
            if (h0 < *closest) *closest = h0;
            heap_push(heap, &nh, (HItem){h0, nn});
            if (queues > 1) heap_push(heap2, &nh2, (HItem){heuristic(&C->s, 1), nn});
            nn++;
        }
        if (deadline > 0 && now_s() > deadline) status = -3;
    }
    if (status == -3) status = -1;
    /* an exhausted restricted search proves nothing either: status stays -1 */
done:
    if (getenv("SOLVER_DEBUG")) fprintf(stderr, "bf: status %d nodes %lld stored %d\n", status, count, nn);
    *nodes_out = count;
    free(nodes); free(heap); free(done_); free(F); free(C); free(t.keys);
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

/* Is a pass's share of the budget used up before it starts (left seconds, nodes_left
 * positions; a limit of 0 is none)? */
static inline int budget_spent(double time_limit, double left, long long node_limit, long long nodes_left) {
    return (time_limit > 0 && left <= 0) || (node_limit > 0 && nodes_left <= 0);
}

static PyObject *py_solve(PyObject *self, PyObject *args) {
    PyObject *columns, *talon, *found;
    int ptr, redeals_used, dc, limit, fret, reverses, table_bits;
    long long node_limit, quick_nodes = 0, layer_bytes = 0;
    int reduce = 1, relax = 1;
    double time_limit;
    if (!PyArg_ParseTuple(args, "OOiOiiiiiLdi|LLpp", &columns, &talon, &ptr, &found, &redeals_used, &dc, &limit,
                          &fret, &reverses, &node_limit, &time_limit, &table_bits, &quick_nodes, &layer_bytes,
                          &reduce, &relax))
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
    rehash(&s);
    if (dc != 1 && dc != 3) { PyErr_SetString(PyExc_ValueError, "draw count must be 1 or 3"); return NULL; }
    if (table_bits < 10 || table_bits > 30) { PyErr_SetString(PyExc_ValueError, "table_bits must be 10..30"); return NULL; }
    Rules R = {dc, limit, fret, reverses};
    if (limit >= 0 && limit > 200) R.limit = 200;
    long long nodes = 0;
    Out out = {NULL, 0, 0};
    int status, closest = 1 << 30;   /* the quick pass's lowest estimate of the distance to a win */
    Py_BEGIN_ALLOW_THREADS
    {
        double t0 = now_s();
        long long quick = 0;
        status = -1;
        if (quick_nodes > 0) {
            /* first the first queue alone for a few positions (most deals are won there, in the
             * order it always had), then both queues afresh with the rest of the quick budget */
            long long first = quick_nodes < QUICK_ONE_QUEUE ? quick_nodes : QUICK_ONE_QUEUE, more = 0;
            status = bestfirst(&s, &R, first, time_limit * QUICK_TIME_SHARE, table_bits, 1, &quick, &out, &closest);
            double left = time_limit > 0 ? time_limit * QUICK_TIME_SHARE - (now_s() - t0) : 0;
            if (status == -1 && quick < quick_nodes && (time_limit <= 0 || left > 0)) {
                status = bestfirst(&s, &R, quick_nodes - quick, left, table_bits, 2, &more, &out, &closest);
                quick += more;
            }
        }
        long long relaxed = 0;
        if (status == -1 && relax && dc == 1 && R.limit >= 0 && !fret) {
            /* the relaxation (see RELAX_SHARE): the same position without a redeal limit */
            double left = time_limit > 0 ? (time_limit - (now_s() - t0)) * RELAX_SHARE : 0;
            long long nl = node_limit > 0 ? (long long)((node_limit - quick) * RELAX_SHARE) : 0;
            if (!budget_spent(time_limit, left, node_limit, nl)) {
                Rules U = R;
                U.limit = -1;
                status = search(&s, &U, nl, left, table_bits, 0, 0, reduce, &relaxed, &out);
                if (status == -2) status = -1;   /* no room for it: the search under the limit may fit */
                if (status == 1) {
                    int used = s.redeals;
                    for (int i = 0; i < out.n; i += 3) used += out.v[i] == OUT_REDEAL;
                    if (used > R.limit) { status = -1; out.n = 0; }   /* a win, but not within the limit */
                }
            }
        }
        if (status == -1) {
            double left = time_limit > 0 ? time_limit - (now_s() - t0) : 0;
            long long nl = node_limit > 0 ? node_limit - quick - relaxed : 0;
            if (budget_spent(time_limit, left, node_limit, nl)) {
                nodes = 0;
            } else {
                status = search(&s, &R, nl, left, table_bits, layer_bytes, 0, reduce, &nodes, &out);
            }
        }
        nodes += quick + relaxed;
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
    if (status == 1) closest = 0;
    return Py_BuildValue("(iNLi)", status, list, nodes, closest == 1 << 30 ? -1 : closest);
}

static PyMethodDef methods[] = {
    {"solve", py_solve, METH_VARARGS, "Solve a full-information Klondike position (see the module source)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_csolver", "C core of the Klondike solver.", -1, methods};

PyMODINIT_FUNC PyInit__csolver(void) {
    zobrist_init();
    return PyModule_Create(&module);
}
