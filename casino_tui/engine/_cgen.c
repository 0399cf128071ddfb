/* The engine's hot path in C: casino_tui.engine._cgen (generate_for, play_on_table, play_card,
 * order_by_keys, shuffled, shuffled_seeded).
 *
 * Each is the function of the same name in casino_tui/engine/_hot.py (same arguments, the same
 * result: the same list of moves in the same order, None in the same cases), for the input it
 * takes: move generation with at most 52 piles (generate_multi for positions holding a card of
 * several values, such as Royal's aces), the table update of a trail, capture or build (with
 * the hand and the captured pile: play_card), the
 * order of a deck of at most 64 cards. Anything else is
 * handed to _hot's function (set by setup()), which is the reference for everything here;
 * tests/test_movegen.py compares the two on random positions of every preset, big tables and
 * odd input.
 *
 * Piles are bits of a 64-bit mask (a table has at most 52 piles); the loose-card subsets of each
 * value, their unions and the candidate builds are arrays of masks in one arena per call; moves
 * are made here as tuple.__new__(Move, ...) makes them, and those on the first 8 piles are
 * interned (kept and given out again, as _hot does). Optional: when it is not built (no C
 * compiler, CASINO_TUI_PURE=1) the engine runs _hot as before.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t u64;

#define MAXP 64       /* piles on the table, cards in hand */
#define MAXV 62       /* capture values (bits of the reachable-sum set) */
#define SMALL 256     /* masks below this are interned here */
#define NCARDS 52

static PyObject *g_fallback = NULL;     /* _hot.generate_for */
static PyObject *g_play = NULL;         /* _hot.play_on_table */
static PyObject *g_play_card = NULL;    /* _hot.play_card */
static PyObject *g_order = NULL;        /* _hot.order_by_keys */
static PyTypeObject *g_move_type = NULL; /* moves.Move */
static PyObject *g_trails = NULL;       /* _hot._TRAILS: the trail of each card */
static PyObject *s_capture = NULL, *s_build = NULL, *s_trail = NULL; /* the kinds, interned */
static PyObject *caps_small[NCARDS][SMALL];
static PyObject **builds_small[NCARDS * 32]; /* card * 32 + value -> SMALL * 2 moves */
static PyObject *mask_tuples[SMALL];         /* the piles of each small mask */
static PyTypeObject *g_build_type = NULL;    /* moves.Build */

/* The rules' value lists (pv, tv1: one int per card) as C arrays. The lists are the rules'
 * cached ones, so the last two pairs seen are kept (with a reference, so the same address is
 * the same list) and read again only when other lists come. */
typedef struct {
    PyObject *pv, *tv;
    int pvv[NCARDS], tvv[NCARDS];
} Values;

static Values values_cache[2];
static int values_next = 0;

static const Values *values_of(PyObject *pv, PyObject *tv) {
    for (int i = 0; i < 2; i++)
        if (values_cache[i].pv == pv && values_cache[i].tv == tv)
            return &values_cache[i];
    if (PyList_GET_SIZE(pv) != NCARDS || PyList_GET_SIZE(tv) != NCARDS)
        return NULL;
    Values tmp;
    for (int c = 0; c < NCARDS; c++) {
        long a = PyLong_AsLong(PyList_GET_ITEM(pv, c));
        long b = PyLong_AsLong(PyList_GET_ITEM(tv, c));
        if (PyErr_Occurred()) {
            PyErr_Clear();
            return NULL;
        }
        if (a < 0 || a > MAXV || b < -1 || b > MAXV)
            return NULL; /* values this generator does not take */
        tmp.pvv[c] = (int)a;
        tmp.tvv[c] = (int)b;
    }
    Values *slot = &values_cache[values_next];
    values_next ^= 1;
    Py_INCREF(pv);
    Py_INCREF(tv);
    Py_XDECREF(slot->pv);
    Py_XDECREF(slot->tv);
    memcpy(slot->pvv, tmp.pvv, sizeof(tmp.pvv));
    memcpy(slot->tvv, tmp.tvv, sizeof(tmp.tvv));
    slot->pv = pv;
    slot->tv = tv;
    return slot;
}

/* a card on the table or in hand: a small int */
static int card_of(PyObject *p) {
    if (!PyLong_CheckExact(p))
        return -1;
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000
    /* CPython 3.11's int: its size (negative for a negative int), then 30-bit digits; a card
     * is 0 (size 0) or one digit, read without a call */
    Py_ssize_t size = Py_SIZE(p);
    if (size == 0)
        return 0;
    if (size != 1)
        return -1;
    unsigned long d = (unsigned long)((PyLongObject *)p)->ob_digit[0];
    return d < NCARDS ? (int)d : -1;
#else
    long c = PyLong_AsLong(p);
    if (c < 0 || c >= NCARDS) {
        PyErr_Clear();
        return -1;
    }
    return (int)c;
#endif
}

/* ---- an arena of 64-bit words for one call: a block on the stack, then the heap ---- */

#define STACK_WORDS 4096

typedef struct Block {
    struct Block *next;
    size_t size;
    u64 words[];
} Block;

typedef struct {
    u64 *base;
    size_t used, size;
    Block *heap;
} Arena;

static u64 *arena_alloc(Arena *ar, size_t n) {
    if (ar->used + n <= ar->size) {
        u64 *p = ar->base + ar->used;
        ar->used += n;
        return p;
    }
    size_t size = n > 8192 ? n : 8192;
    Block *b = (Block *)malloc(sizeof(Block) + size * sizeof(u64));
    if (b == NULL)
        return NULL;
    b->next = ar->heap;
    b->size = size;
    ar->heap = b;
    ar->base = b->words;
    ar->size = size;
    ar->used = n;
    return b->words;
}

static void arena_free(Arena *ar) {
    Block *b = ar->heap;
    while (b != NULL) {
        Block *next = b->next;
        free(b);
        b = next;
    }
    ar->heap = NULL;
}

typedef struct {
    u64 *a;
    size_t n, cap;
} Vec;

static int vec_init(Vec *v, Arena *ar, size_t cap) {
    v->a = arena_alloc(ar, cap);
    v->n = 0;
    v->cap = cap;
    return v->a != NULL;
}

static int vec_push(Vec *v, Arena *ar, u64 x) {
    if (v->n == v->cap) {
        size_t cap = v->cap * 2;
        u64 *a = arena_alloc(ar, cap);
        if (a == NULL)
            return 0;
        memcpy(a, v->a, v->n * sizeof(u64));
        v->a = a;
        v->cap = cap;
    }
    v->a[v->n++] = x;
    return 1;
}

static int popcount(u64 m) { /* (SWAR: no library call where the CPU has no popcnt) */
    m = m - ((m >> 1) & 0x5555555555555555ull);
    m = (m & 0x3333333333333333ull) + ((m >> 2) & 0x3333333333333333ull);
    m = (m + (m >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (int)((m * 0x0101010101010101ull) >> 56);
}

/* ---- sorting ---- */

/* The canonical order of pile sets (movegen.mask_order): fewer piles, then the lower mask. A
 * table has at most 52 piles (generate() hands larger ones to _hot), so a mask's sort key is
 * its pile count above its 52 bits: one integer comparison, no comparison function. */
#define KEY_SHIFT 52
#define MASK_BITS (((u64)1 << KEY_SHIFT) - 1)

static u64 mask_key(u64 m) { return (u64)popcount(m) << KEY_SHIFT | m; }

static void insertion_u64(u64 *a, size_t n) {
    for (size_t i = 1; i < n; i++) {
        u64 x = a[i];
        size_t j = i;
        while (j > 0 && x < a[j - 1]) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
}

static void sift_u64(u64 *a, size_t root, size_t n) {
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n)
            return;
        if (child + 1 < n && a[child] < a[child + 1])
            child++;
        if (a[root] >= a[child])
            return;
        u64 t = a[root];
        a[root] = a[child];
        a[child] = t;
        root = child;
    }
}

static void heap_u64(u64 *a, size_t n) {
    for (size_t i = n / 2; i-- > 0;)
        sift_u64(a, i, n);
    for (size_t end = n; end-- > 1;) {
        u64 t = a[0];
        a[0] = a[end];
        a[end] = t;
        sift_u64(a, 0, end);
    }
}

static void swap_u64(u64 *a, size_t i, size_t j) {
    u64 t = a[i];
    a[i] = a[j];
    a[j] = t;
}

/* introsort: quicksort (the median of three in the middle, Hoare's partition), heapsort when
 * it goes too deep, insertion sort for short runs */
static void intro_u64(u64 *a, size_t n, int depth) {
    while (n > 16) {
        if (depth-- == 0) {
            heap_u64(a, n);
            return;
        }
        size_t mid = n / 2;
        if (a[mid] < a[0])
            swap_u64(a, mid, 0);
        if (a[n - 1] < a[0])
            swap_u64(a, n - 1, 0);
        if (a[n - 1] < a[mid])
            swap_u64(a, n - 1, mid);
        u64 p = a[mid];
        size_t i = 0, j = n - 1;
        for (;;) { /* ends with a[0..j] <= p <= a[j+1..n), 0 <= j < n - 1 */
            while (a[i] < p)
                i++;
            while (a[j] > p)
                j--;
            if (i >= j)
                break;
            swap_u64(a, i, j);
            i++;
            j--;
        }
        size_t left = j + 1;
        if (left < n - left) { /* recurse into the shorter side, loop on the longer */
            intro_u64(a, left, depth);
            a += left;
            n -= left;
        } else {
            intro_u64(a + left, n - left, depth);
            n = left;
        }
    }
    insertion_u64(a, n);
}

static void sort_u64(u64 *a, size_t n) {
    if (n < 2)
        return;
    int depth = 0;
    for (size_t k = n; k > 1; k >>= 1)
        depth += 2;
    intro_u64(a, n, depth);
}

/* masks (below 2^52) in the canonical order */
static void sort_masks(u64 *a, size_t n) {
    if (n < 2)
        return;
    for (size_t i = 0; i < n; i++)
        a[i] = mask_key(a[i]);
    sort_u64(a, n);
    for (size_t i = 0; i < n; i++)
        a[i] &= MASK_BITS;
}

/* ---- the position ---- */

typedef struct {
    int nv;              /* loose cards with a value */
    int vals[MAXP];      /* their values (table order) */
    int pos[MAXP];       /* their positions on the table */
    int bvals[MAXP];
    int bsingle[MAXP];
    int no;              /* builds the mover owns */
    u64 obits[MAXP];
    int ovals[MAXP];
    int nh;
    int hvals[MAXP];
    Arena *ar;
    Vec subs[MAXV + 1];
    char subs_done[MAXV + 1];
    Vec uns[MAXV + 1];
    char uns_done[MAXV + 1];
} Pos;

static int subsets_from(Pos *P, Vec *out, int j, u64 mask, int rest) {
    for (int k = j; k < P->nv; k++) {
        int v = P->vals[k];
        if (v > rest)
            return 1;
        u64 bit = (u64)1 << P->pos[k];
        if (v == rest) {
            if (!vec_push(out, P->ar, mask | bit))
                return 0;
        } else if (!subsets_from(P, out, k + 1, mask | bit, rest - v)) {
            return 0;
        }
    }
    return 1;
}

/* the loose-card subsets totalling target (cached per value); NULL when out of memory */
static Vec *subs(Pos *P, int target) {
    Vec *v = &P->subs[target];
    if (!P->subs_done[target]) {
        if (!vec_init(v, P->ar, 16) || !subsets_from(P, v, 0, 0, target))
            return NULL;
        P->subs_done[target] = 1;
    }
    return v;
}

/* every union of pairwise-disjoint groups, the empty one (0) included, each once */
static int unions(Arena *ar, const u64 *groups, size_t ng, Vec *res) {
    if (!vec_init(res, ar, 16) || !vec_push(res, ar, 0))
        return 0;
    if (ng == 0)
        return 1;
    if (ng == 1)
        return vec_push(res, ar, groups[0]);
    if (ng == 2) {
        if (!vec_push(res, ar, groups[0]) || !vec_push(res, ar, groups[1]))
            return 0;
        if (!(groups[0] & groups[1]) && !vec_push(res, ar, groups[0] | groups[1]))
            return 0;
        return 1;
    }
    if (ng <= 4) { /* at most 16 unions: found again by looking through them */
        for (size_t gi = 0; gi < ng; gi++) {
            u64 g = groups[gi];
            size_t len = res->n;
            for (size_t ui = 0; ui < len; ui++) {
                u64 u = res->a[ui];
                if (u & g)
                    continue;
                u64 x = u | g;
                size_t k = 1;
                while (k < res->n && res->a[k] != x)
                    k++;
                if (k == res->n && !vec_push(res, ar, x))
                    return 0;
            }
        }
        return 1;
    }
    /* a hash set of the unions found (all nonzero but the first), open addressing */
    size_t hcap = 64;
    u64 *hs = arena_alloc(ar, hcap);
    if (hs == NULL)
        return 0;
    memset(hs, 0, hcap * sizeof(u64));
    size_t hn = 0;
    for (size_t gi = 0; gi < ng; gi++) {
        u64 g = groups[gi];
        size_t len = res->n;
        for (size_t ui = 0; ui < len; ui++) {
            u64 u = res->a[ui];
            if (u & g)
                continue;
            u64 x = u | g;
            size_t h = (size_t)((x * 0x9E3779B97F4A7C15ull) >> 32) & (hcap - 1);
            int found = 0;
            while (hs[h]) {
                if (hs[h] == x) {
                    found = 1;
                    break;
                }
                h = (h + 1) & (hcap - 1);
            }
            if (found)
                continue;
            hs[h] = x;
            hn++;
            if (!vec_push(res, ar, x))
                return 0;
            if (hn * 2 > hcap) { /* grow: rehash into a table twice the size */
                size_t ncap = hcap * 2;
                u64 *nhs = arena_alloc(ar, ncap);
                if (nhs == NULL)
                    return 0;
                memset(nhs, 0, ncap * sizeof(u64));
                for (size_t i = 0; i < hcap; i++) {
                    u64 y = hs[i];
                    if (!y)
                        continue;
                    size_t k = (size_t)((y * 0x9E3779B97F4A7C15ull) >> 32) & (ncap - 1);
                    while (nhs[k])
                        k = (k + 1) & (ncap - 1);
                    nhs[k] = y;
                }
                hs = nhs;
                hcap = ncap;
            }
        }
    }
    return 1;
}

/* the retain rule: every owned build outside mask keeps a capturing card in hand (not hi) */
static int keeps(const Pos *P, int hi, u64 mask) {
    for (int k = 0; k < P->no; k++) {
        if (P->obits[k] & mask)
            continue;
        int need = P->ovals[k], ok = 0;
        for (int j = 0; j < P->nh; j++) {
            if (j != hi && P->hvals[j] == need) {
                ok = 1;
                break;
            }
        }
        if (!ok)
            return 0;
    }
    return 1;
}

/* ---- moves ---- */

typedef struct {
    PyObject **a;
    Py_ssize_t n, cap;
    PyObject *stack[128];
} Out;

static int out_push(Out *o, PyObject *mv) { /* steals mv */
    if (mv == NULL)
        return 0;
    if (o->n == o->cap) {
        Py_ssize_t cap = o->cap * 2;
        PyObject **a;
        if (o->a == o->stack) {
            a = (PyObject **)malloc(cap * sizeof(PyObject *));
            if (a != NULL)
                memcpy(a, o->a, o->n * sizeof(PyObject *));
        } else {
            a = (PyObject **)realloc(o->a, cap * sizeof(PyObject *));
        }
        if (a == NULL) {
            Py_DECREF(mv);
            PyErr_NoMemory();
            return 0;
        }
        o->a = a;
        o->cap = cap;
    }
    o->a[o->n++] = mv;
    return 1;
}

static void out_free(Out *o) {
    for (Py_ssize_t i = 0; i < o->n; i++)
        Py_DECREF(o->a[i]);
    if (o->a != o->stack)
        free(o->a);
}

/* A new Move, as tuple.__new__(Move, (kind, card, piles, value, single, False)) makes it */
static PyObject *new_move(PyObject *kind, int card, u64 mask, int value, int single) {
    PyObject *piles = NULL;
    if (mask < SMALL && mask_tuples[mask] != NULL) {
        piles = mask_tuples[mask];
        Py_INCREF(piles);
    } else {
        piles = PyTuple_New(popcount(mask));
        if (piles == NULL)
            return NULL;
        Py_ssize_t k = 0;
        for (int i = 0; i < 64; i++) {
            if (mask >> i & 1) {
                PyObject *x = PyLong_FromLong(i);
                if (x == NULL) {
                    Py_DECREF(piles);
                    return NULL;
                }
                PyTuple_SET_ITEM(piles, k++, x);
            }
        }
        PyObject_GC_UnTrack(piles); /* ints only: no cycle through it */
        if (mask < SMALL) {
            mask_tuples[mask] = piles; /* kept for good */
            Py_INCREF(piles);
        }
    }
    PyObject *c = PyLong_FromLong(card);
    PyObject *v = value ? PyLong_FromLong(value) : Py_NewRef(Py_None);
    PyObject *sg = value ? Py_NewRef(single ? Py_True : Py_False) : Py_NewRef(Py_None);
    PyObject *mv = g_move_type->tp_alloc(g_move_type, 6);
    if (mv == NULL || c == NULL || v == NULL) {
        Py_XDECREF(mv);
        Py_XDECREF(c);
        Py_XDECREF(v);
        Py_DECREF(sg);
        Py_DECREF(piles);
        return NULL;
    }
    PyTuple_SET_ITEM(mv, 0, Py_NewRef(kind));
    PyTuple_SET_ITEM(mv, 1, c);
    PyTuple_SET_ITEM(mv, 2, piles);
    PyTuple_SET_ITEM(mv, 3, v);
    PyTuple_SET_ITEM(mv, 4, sg);
    PyTuple_SET_ITEM(mv, 5, Py_NewRef(Py_False));
    /* Nothing in a move can refer back to it (strings, ints, a tuple of ints, None, bools):
     * the garbage collector need not track it. Kept moves number in the hundreds of thousands,
     * and every full collection would walk them all (CPython untracks such plain tuples itself,
     * but not instances of tuple subclasses like Move). */
    PyObject_GC_UnTrack(mv);
    return mv;
}

/* Moves on piles beyond the first 8 (masks from SMALL on) are kept in one hash table, keyed by
 * the mask and a tag (kind, card, value, kind of build), up to BIG_KEEP of them (a few MB of
 * moves; later ones are made anew each time, as all of these were before). */
#define BIG_SLOTS (1 << 16)
#define BIG_KEEP (BIG_SLOTS / 2)

typedef struct {
    u64 mask;
    uint32_t tag; /* 0: an empty slot */
    PyObject *mv;
} BigSlot;

static BigSlot *big = NULL;
static size_t big_kept = 0;

static PyObject *big_move(PyObject *kind, int card, u64 mask, int value, int single) {
    uint32_t tag = 1u << 31 | (uint32_t)(kind == s_build) << 20 | (uint32_t)card << 13
                   | (uint32_t)value << 1 | (uint32_t)(single != 0);
    if (big == NULL && big_kept == 0) {
        big = (BigSlot *)calloc(BIG_SLOTS, sizeof(BigSlot));
        if (big == NULL)
            big_kept = BIG_KEEP; /* (no room for the table: every move made anew) */
    }
    if (big == NULL || value < 0 || value >= 1 << 12)
        return new_move(kind, card, mask, value, single);
    size_t h = (size_t)(((mask ^ ((u64)tag << 40)) * 0x9E3779B97F4A7C15ull) >> 48)
               & (BIG_SLOTS - 1);
    while (big[h].tag) {
        if (big[h].tag == tag && big[h].mask == mask) {
            Py_INCREF(big[h].mv);
            return big[h].mv;
        }
        h = (h + 1) & (BIG_SLOTS - 1);
    }
    PyObject *mv = new_move(kind, card, mask, value, single);
    if (mv != NULL && big_kept < BIG_KEEP) {
        big[h].mask = mask;
        big[h].tag = tag;
        big[h].mv = Py_NewRef(mv); /* kept for good */
        big_kept++;
    }
    return mv;
}

static PyObject *capture_move(int card, u64 mask) { /* a new reference */
    if (mask < SMALL) {
        PyObject *got = caps_small[card][mask];
        if (got == NULL) {
            got = new_move(s_capture, card, mask, 0, 0);
            if (got == NULL)
                return NULL;
            caps_small[card][mask] = got; /* kept for good */
        }
        Py_INCREF(got);
        return got;
    }
    return big_move(s_capture, card, mask, 0, 0);
}

static PyObject *build_move(int card, u64 mask, int value, int single) {
    if (mask < SMALL && value < 32) {
        PyObject **row = builds_small[card * 32 + value];
        if (row == NULL) {
            row = (PyObject **)calloc(SMALL * 2, sizeof(PyObject *));
            if (row == NULL)
                return PyErr_NoMemory();
            builds_small[card * 32 + value] = row;
        }
        PyObject **slot = &row[mask * 2 + (single ? 1 : 0)];
        if (*slot == NULL) {
            *slot = new_move(s_build, card, mask, value, single);
            if (*slot == NULL)
                return NULL;
        }
        Py_INCREF(*slot);
        return *slot;
    }
    return big_move(s_build, card, mask, value, single);
}

/* builds: each group of part with each disjoint union of us, as found[i] = the mask's sort key
 * (mask_key) << 1 | whether this decomposition is the group alone (a single build) */
static int join(Arena *ar, Vec *found, const u64 *part, size_t np, const Vec *us) {
    for (size_t i = 0; i < np; i++) {
        u64 h = part[i];
        for (size_t k = 0; k < us->n; k++) {
            u64 u = us->a[k];
            if (u & h)
                continue;
            u64 m = h | u;
            if (m && !vec_push(found, ar, mask_key(m) << 1 | (u == 0)))
                return 0;
        }
    }
    return 1;
}

/* 1: done; 0: an error is set; -1: the position is not for this generator; 2: it holds a
 * card of several values (generate_multi's) */
static int generate(PyObject *const *args, Out *out, Pos *P, int *none) {
    PyObject *table = args[0], *hand = args[1], *pvl = args[3], *tvl = args[4];
    if (!PyList_CheckExact(table) || !PyList_CheckExact(hand))
        return -1; /* _hot decides (compiled, it takes lists only) */
    if (!PyList_CheckExact(pvl) || !PyList_CheckExact(tvl))
        return -1;
    long mover = PyLong_AsLong(args[2]);
    long maxv = PyLong_AsLong(args[5]);
    if ((mover == -1 || maxv == -1) && PyErr_Occurred()) {
        PyErr_Clear();
        return -1;
    }
    if (maxv < 0 || maxv > MAXV)
        return -1;
    int table_only = PyObject_IsTrue(args[6]);
    int building = PyObject_IsTrue(args[7]);
    int owner_rules = PyObject_IsTrue(args[8]);
    if (table_only < 0 || building < 0 || owner_rules < 0) {
        PyErr_Clear();
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(table);
    Py_ssize_t nh = PySequence_Fast_GET_SIZE(hand);
    if (n > NCARDS || nh > MAXP)
        return -1; /* (a table of real cards has at most 52 piles: masks below 2^52) */
    PyObject **tab = PySequence_Fast_ITEMS(table);
    PyObject **hnd = PySequence_Fast_ITEMS(hand);
    const Values *vals = values_of(pvl, tvl);
    if (vals == NULL)
        return -1;
    const int *pv = vals->pvv, *tv1 = vals->tvv;

    /* loose cards, their values and the reachable sums */
    int tcard[MAXP];
    u64 limit = ((u64)1 << (maxv + 1)) - 1; /* (maxv <= MAXV: within the 64 bits) */
    u64 reach = 1;
    int nl = 0;
    P->nv = 0;
    while (nl < n) {
        PyObject *p = tab[nl];
        if (!PyLong_Check(p))
            break;
        int c = card_of(p);
        if (c < 0)
            return -1;
        int v = tv1[c];
        if (v < 0)
            return 2; /* a card of several values: generate_multi */
        tcard[nl] = c;
        if (v) {
            P->vals[P->nv] = v;
            P->pos[P->nv] = nl;
            P->nv++;
            reach = (reach | (reach << v)) & limit;
        }
        nl++;
    }
    int nb = (int)n - nl;
    P->no = 0;
    for (int j = 0; j < nb; j++) {
        PyObject *b = tab[nl + j];
        if (!PyTuple_Check(b) || PyTuple_GET_SIZE(b) < 4)
            return -1;
        long bv = PyLong_AsLong(PyTuple_GET_ITEM(b, 1));
        int single = PyObject_IsTrue(PyTuple_GET_ITEM(b, 2));
        long owner = PyLong_AsLong(PyTuple_GET_ITEM(b, 3));
        if (PyErr_Occurred() || single < 0) {
            PyErr_Clear();
            return -1;
        }
        P->bvals[j] = (int)bv;
        P->bsingle[j] = single;
        if (owner == mover) {
            if (!owner_rules) {
                *none = 1;
                return 1;
            }
            P->obits[P->no] = (u64)1 << (nl + j);
            P->ovals[P->no] = (int)bv;
            P->no++;
        }
    }
    int owned = P->no > 0;

    /* the hand: capture values; the distinct ones ascending */
    int hcard[MAXP];
    int held[MAXP];
    int nheld = 0;
    P->nh = (int)nh;
    for (int i = 0; i < nh; i++) {
        int c = card_of(hnd[i]);
        if (c < 0)
            return -1;
        int w = pv[c];
        if (!w && n && tv1[c] != 0)
            return 2; /* a card of several values, or the table clearer */
        hcard[i] = c;
        P->hvals[i] = w;
        if (w) {
            int k = 0;
            while (k < nheld && held[k] < w)
                k++;
            if (k == nheld || held[k] != w) {
                memmove(&held[k + 1], &held[k], (size_t)(nheld - k) * sizeof(int));
                held[k] = w;
                nheld++;
            }
        }
    }
    memset(P->subs_done, 0, sizeof(P->subs_done));
    memset(P->uns_done, 0, sizeof(P->uns_done));
    Arena *ar = P->ar;

    for (int hi = 0; hi < nh; hi++) {
        int card = hcard[hi];
        int v = P->hvals[hi];
        /* ---- captures */
        if (n) {
            if (v) {
                Vec groups;
                if (!vec_init(&groups, ar, 8))
                    goto nomem;
                if (reach >> v & 1) {
                    Vec *s = subs(P, v);
                    if (s == NULL)
                        goto nomem;
                    for (size_t i = 0; i < s->n; i++)
                        if (!vec_push(&groups, ar, s->a[i]))
                            goto nomem;
                }
                for (int j = 0; j < nb; j++)
                    if (P->bvals[j] == v && !vec_push(&groups, ar, (u64)1 << (nl + j)))
                        goto nomem;
                Vec caps;
                if (groups.n <= 1) {
                    caps = groups;
                } else {
                    if (!unions(ar, groups.a, groups.n, &caps))
                        goto nomem;
                    caps.a++; /* without the empty union */
                    caps.n--;
                    sort_masks(caps.a, caps.n);
                }
                for (size_t i = 0; i < caps.n; i++) {
                    u64 m = caps.a[i];
                    if (!owned || keeps(P, hi, m))
                        if (!out_push(out, capture_move(card, m)))
                            return 0;
                }
            } else { /* a court card: one loose card of its rank */
                int r = card >> 2;
                for (int i = 0; i < nl; i++)
                    if (tcard[i] >> 2 == r && (!owned || keeps(P, hi, (u64)1 << i)))
                        if (!out_push(out, capture_move(card, (u64)1 << i)))
                            return 0;
            }
        }
        /* ---- builds */
        int hv = tv1[card];
        if (building && n && hv > 0) {
            int twice = 0;
            if (v > 0) {
                int seen = 0;
                for (int j = 0; j < nh; j++)
                    if (P->hvals[j] == v) {
                        if (seen) {
                            twice = 1;
                            break;
                        }
                        seen = 1;
                    }
            }
            for (int ti = 0; ti < nheld; ti++) {
                int target = held[ti];
                if (target < hv || (target == v && !twice))
                    continue;
                int d = target - hv;
                static const u64 zero = 0;
                const u64 *hg = &zero;
                size_t nhg = 1;
                if (d) {
                    nhg = 0;
                    if (reach >> d & 1) {
                        Vec *s = subs(P, d);
                        if (s == NULL)
                            goto nomem;
                        hg = s->a;
                        nhg = s->n;
                    }
                }
                u64 raises[MAXP];
                size_t nraises = 0;
                if (d && nb)
                    for (int j = 0; j < nb; j++)
                        if (P->bvals[j] == d && P->bsingle[j])
                            raises[nraises++] = (u64)1 << (nl + j);
                if (!nhg && !nraises)
                    continue;
                /* the other groups of this value: loose subsets (table_only), builds */
                size_t nothers = 0;
                Vec *ts = NULL;
                if (table_only && (reach >> target & 1)) {
                    ts = subs(P, target);
                    if (ts == NULL)
                        goto nomem;
                    nothers = ts->n;
                }
                int tb = 0;
                for (int j = 0; j < nb; j++)
                    if (P->bvals[j] == target)
                        tb++;
                nothers += (size_t)tb;
                if (!nothers) {
                    if (!d && !nraises)
                        continue; /* the card alone: no build */
                    /* every build is the hand card's group alone: single builds */
                    Vec ms;
                    if (!vec_init(&ms, ar, nhg + nraises + 1))
                        goto nomem;
                    for (size_t i = 0; i < nhg; i++)
                        if (!owned || keeps(P, hi, hg[i]))
                            ms.a[ms.n++] = hg[i];
                    for (size_t i = 0; i < nraises; i++)
                        if (!owned || keeps(P, hi, raises[i]))
                            ms.a[ms.n++] = raises[i];
                    sort_masks(ms.a, ms.n);
                    for (size_t i = 0; i < ms.n; i++)
                        if (!out_push(out, build_move(card, ms.a[i], target, 1)))
                            return 0;
                    continue;
                }
                /* the unions of the other groups: the same for every hand card */
                Vec *us = &P->uns[target];
                if (!P->uns_done[target]) {
                    Vec others;
                    if (!vec_init(&others, ar, nothers + 1))
                        goto nomem;
                    if (ts != NULL) {
                        memcpy(others.a, ts->a, ts->n * sizeof(u64));
                        others.n = ts->n;
                    }
                    for (int j = 0; j < nb; j++)
                        if (P->bvals[j] == target)
                            others.a[others.n++] = (u64)1 << (nl + j);
                    if (!unions(ar, others.a, others.n, us))
                        goto nomem;
                    P->uns_done[target] = 1;
                }
                Vec found; /* keyed (see join) */
                if (!vec_init(&found, ar, 32))
                    goto nomem;
                if (!join(ar, &found, hg, nhg, us) || !join(ar, &found, raises, nraises, us))
                    goto nomem;
                u64 *fs = found.a;
                size_t nk = 0;
                for (size_t i = 0; i < found.n; i++) /* the retain rule, in place */
                    if (!owned || keeps(P, hi, fs[i] >> 1 & MASK_BITS))
                        fs[nk++] = fs[i];
                sort_u64(fs, nk); /* the canonical order; a mask's entries side by side */
                for (size_t i = 0; i < nk;) {
                    u64 key = fs[i] >> 1;
                    int single = 0;
                    while (i < nk && fs[i] >> 1 == key) {
                        single |= (int)(fs[i] & 1);
                        i++;
                    }
                    if (!out_push(out, build_move(card, key & MASK_BITS, target, single)))
                        return 0;
                }
            }
        }
        if (!owned) {
            PyObject *t = PyList_GET_ITEM(g_trails, card);
            Py_INCREF(t);
            if (!out_push(out, t))
                return 0;
        }
    }
    if (out->n == 0)
        *none = 1; /* cannot happen with the retain rule; the general generator decides */
    return 1;
nomem:
    PyErr_NoMemory();
    return 0;
}

/* ---- cards of several values (Royal's aces, Buckeye's ten of diamonds) ---- */

/* _hot.generate_multi: positions holding a card of several values, with the rules' values of
 * every card (the MultiValues object generate_for is given), read once per MultiValues and
 * kept like the value lists above. */
#define MV 4 /* values a card may have here (Royal's aces have 2; more: _hot decides) */

typedef struct {
    PyObject *obj;
    int ncap[NCARDS], cap[NCARDS][MV]; /* the values of a card as a capturer */
    int ntab[NCARDS], tab[NCARDS][MV]; /* as a loose card or build component */
    int low[NCARDS];                   /* its low value (0: a court card without one) */
    int clearer;                       /* the table-clearer card, or -1 */
} Multi;

static Multi multi_cache[2];
static int multi_next = 0;

/* the values of list lst (a list of NCARDS lists of ints) into n[] and v[][] */
static int read_value_lists(PyObject *lst, int *n, int (*v)[MV]) {
    if (lst == NULL || !PyList_CheckExact(lst) || PyList_GET_SIZE(lst) != NCARDS)
        return 0;
    for (int c = 0; c < NCARDS; c++) {
        PyObject *vs = PyList_GET_ITEM(lst, c);
        if (!PyList_CheckExact(vs) || PyList_GET_SIZE(vs) > MV)
            return 0;
        n[c] = (int)PyList_GET_SIZE(vs);
        for (int i = 0; i < n[c]; i++) {
            long x = PyLong_AsLong(PyList_GET_ITEM(vs, i));
            if (x < 1 || x > MAXV) /* (an error too: -1) */
                return 0;
            v[c][i] = (int)x;
        }
    }
    return 1;
}

/* the C form of a MultiValues (attributes capture, table, low, clearer); NULL with no error
 * set when it is not one this generator takes */
static const Multi *multi_of(PyObject *mv) {
    for (int i = 0; i < 2; i++)
        if (multi_cache[i].obj == mv)
            return &multi_cache[i];
    Multi *tmp = (Multi *)malloc(sizeof(Multi));
    if (tmp == NULL)
        return NULL;
    PyObject *cap = PyObject_GetAttrString(mv, "capture");
    PyObject *tab = PyObject_GetAttrString(mv, "table");
    PyObject *low = PyObject_GetAttrString(mv, "low");
    PyObject *clr = PyObject_GetAttrString(mv, "clearer");
    int ok = cap != NULL && tab != NULL && low != NULL && clr != NULL
        && read_value_lists(cap, tmp->ncap, tmp->cap) && read_value_lists(tab, tmp->ntab, tmp->tab)
        && PyList_CheckExact(low) && PyList_GET_SIZE(low) == NCARDS;
    for (int c = 0; ok && c < NCARDS; c++) {
        long x = PyLong_AsLong(PyList_GET_ITEM(low, c));
        if (x < 0 || x > MAXV)
            ok = 0;
        else
            tmp->low[c] = (int)x;
    }
    if (ok) {
        long x = PyLong_AsLong(clr);
        if (x == -1 && PyErr_Occurred())
            ok = 0;
        else
            tmp->clearer = x >= 0 && x < NCARDS ? (int)x : -1;
    }
    Py_XDECREF(cap);
    Py_XDECREF(tab);
    Py_XDECREF(low);
    Py_XDECREF(clr);
    PyErr_Clear();
    if (!ok) {
        free(tmp);
        return NULL;
    }
    Multi *slot = &multi_cache[multi_next];
    multi_next ^= 1;
    PyObject *old = slot->obj;
    memcpy(slot, tmp, sizeof(Multi));
    free(tmp);
    slot->obj = Py_NewRef(mv);
    Py_XDECREF(old);
    return slot;
}

static int has_value(const int *vs, int n, int v) {
    for (int i = 0; i < n; i++)
        if (vs[i] == v)
            return 1;
    return 0;
}

typedef struct {
    const Multi *mv;
    int nv;                 /* loose cards with a table value */
    int nvals[MAXP];        /* how many values each has */
    int vals[MAXP][MV];     /* their values */
    int pos[MAXP];          /* their positions on the table */
    int bvals[MAXP];
    int bsingle[MAXP];
    int no;                 /* builds the mover owns */
    u64 obits[MAXP];
    int ovals[MAXP];
    int nh;
    int hcard[MAXP];
    int maxv;
    u64 reach[MAXP + 1];    /* reach[k]: the sums (to maxv) of the subsets of loose cards k.. */
    Arena *ar;
    Vec subs[MAXV + 1];
    char subs_done[MAXV + 1];
} MPos;

/* (only into branches that can still reach the sum: M->reach) */
static int subsets_multi_from(MPos *M, Vec *out, int j, u64 mask, int rest) {
    for (int k = j; k < M->nv; k++) {
        if (!(M->reach[k] >> rest & 1))
            return 1; /* no subset of the cards from k on makes rest */
        u64 bit = (u64)1 << M->pos[k];
        u64 after = M->reach[k + 1];
        for (int i = 0; i < M->nvals[k]; i++) {
            int v = M->vals[k][i];
            if (v == rest) {
                if (!vec_push(out, M->ar, mask | bit))
                    return 0;
            } else if (v < rest && (after >> (rest - v) & 1)
                       && !subsets_multi_from(M, out, k + 1, mask | bit, rest - v)) {
                return 0;
            }
        }
    }
    return 1;
}

/* the loose-card subsets totalling target for some choice of each card's value, each once
 * (cached per value; in no particular order: every use of them is a set); NULL when out of
 * memory */
static const Vec empty_vec = {NULL, 0, 0};

static const Vec *subs_multi(MPos *M, int target) {
    if (target > M->maxv || !(M->reach[0] >> target & 1))
        return &empty_vec;
    Vec *v = &M->subs[target];
    if (!M->subs_done[target]) {
        if (!vec_init(v, M->ar, 16) || !subsets_multi_from(M, v, 0, 0, target))
            return NULL;
        if (v->n > 1) { /* each mask once */
            sort_u64(v->a, v->n);
            size_t k = 1;
            for (size_t i = 1; i < v->n; i++)
                if (v->a[i] != v->a[k - 1])
                    v->a[k++] = v->a[i];
            v->n = k;
        }
        M->subs_done[target] = 1;
    }
    return v;
}

/* _hot._answers: can the hand without hand[hi] answer for builds of every value in values at
 * once, each value with a card of its own (Hall's condition)? -1: too many values to check */
static int answers(const MPos *M, int hi, const int *values, int nvalues) {
    u64 nbrs[MAXP + 1];
    int seen[MAXP + 1];
    int k = 0;
    u64 used = 0;
    int shared = 0;
    for (int i = 0; i < nvalues; i++) {
        int value = values[i];
        int dup = 0;
        for (int s = 0; s < k; s++)
            if (seen[s] == value) {
                dup = 1;
                break;
            }
        if (dup)
            continue;
        u64 m = 0;
        for (int j = 0; j < M->nh; j++) {
            int c = M->hcard[j];
            if (j != hi && has_value(M->mv->cap[c], M->mv->ncap[c], value))
                m |= (u64)1 << j;
        }
        if (!m)
            return 0;
        if (m & used)
            shared = 1;
        used |= m;
        seen[k] = value;
        nbrs[k++] = m;
    }
    if (!shared)
        return 1;
    if (k > 24)
        return -1;
    for (u64 sub = 3; sub < ((u64)1 << k); sub++) {
        int size = popcount(sub);
        if (size < 2)
            continue;
        u64 cards = 0;
        for (int i = 0; i < k; i++)
            if (sub >> i & 1)
                cards |= nbrs[i];
        if (popcount(cards) < size)
            return 0;
    }
    return 1;
}

/* _hot._answers_left: the retain rule after playing hand[hi] on mask (with a new build of
 * new_value if not 0); -1 as answers */
static int answers_left(const MPos *M, int hi, u64 mask, int new_value) {
    int left[MAXP + 1];
    int nleft = 0;
    for (int k = 0; k < M->no; k++)
        if (!(M->obits[k] & mask))
            left[nleft++] = M->ovals[k];
    if (new_value)
        left[nleft++] = new_value;
    return !nleft || answers(M, hi, left, nleft);
}

/* _hot.generate_multi; the arguments are generate_for's, multi the MultiValues.
 * 1: done; 0: an error is set; -1: the position is not for this generator */
static int generate_multi(PyObject *const *args, const Multi *mv, Out *out, Arena *ar,
                          int *none) {
    PyObject *table = args[0], *hand = args[1];
    long mover = PyLong_AsLong(args[2]);
    long maxv = PyLong_AsLong(args[5]);
    int table_only = PyObject_IsTrue(args[6]);
    int building = PyObject_IsTrue(args[7]);
    int owner_rules = PyObject_IsTrue(args[8]);
    if (PyErr_Occurred() || table_only < 0 || building < 0 || owner_rules < 0
            || maxv < 0 || maxv > MAXV) {
        PyErr_Clear();
        return -1;
    }
    Py_ssize_t n = PyList_GET_SIZE(table), nh = PyList_GET_SIZE(hand);
    if (n > NCARDS || nh > MAXP)
        return -1;
    MPos *M = (MPos *)arena_alloc(ar, (sizeof(MPos) + 7) / 8);
    if (M == NULL)
        goto nomem;
    M->mv = mv;
    M->ar = ar;
    M->maxv = (int)maxv;
    M->nh = (int)nh;
    memset(M->subs_done, 0, sizeof(M->subs_done));
    for (int i = 0; i < nh; i++) {
        int c = card_of(PyList_GET_ITEM(hand, i));
        if (c < 0)
            return -1;
        if (c == mv->clearer) {
            *none = 1; /* the general generator decides */
            return 1;
        }
        M->hcard[i] = c;
    }
    int tcard[MAXP];
    int nl = 0;
    M->nv = 0;
    while (nl < n) {
        PyObject *p = PyList_GET_ITEM(table, nl);
        if (!PyLong_Check(p))
            break;
        int c = card_of(p);
        if (c < 0)
            return -1;
        tcard[nl] = c;
        if (mv->ntab[c]) {
            M->nvals[M->nv] = mv->ntab[c];
            memcpy(M->vals[M->nv], mv->tab[c], sizeof(mv->tab[c]));
            M->pos[M->nv] = nl;
            M->nv++;
        }
        nl++;
    }
    { /* the sums each suffix of the loose cards can make, to maxv (maxv <= MAXV < 63) */
        u64 limit = ((u64)1 << (maxv + 1)) - 1;
        M->reach[M->nv] = 1;
        for (int k = M->nv - 1; k >= 0; k--) {
            u64 r = M->reach[k + 1], x = r;
            for (int i = 0; i < M->nvals[k]; i++)
                x |= r << M->vals[k][i];
            M->reach[k] = x & limit;
        }
    }
    int nb = (int)n - nl;
    M->no = 0;
    for (int j = 0; j < nb; j++) {
        PyObject *b = PyList_GET_ITEM(table, nl + j);
        if (!PyTuple_Check(b) || PyTuple_GET_SIZE(b) < 4)
            return -1;
        long bv = PyLong_AsLong(PyTuple_GET_ITEM(b, 1));
        int single = PyObject_IsTrue(PyTuple_GET_ITEM(b, 2));
        long owner = PyLong_AsLong(PyTuple_GET_ITEM(b, 3));
        if (PyErr_Occurred() || single < 0) {
            PyErr_Clear();
            return -1;
        }
        M->bvals[j] = (int)bv;
        M->bsingle[j] = single;
        if (owner == mover) {
            if (!owner_rules) {
                *none = 1;
                return 1;
            }
            M->obits[M->no] = (u64)1 << (nl + j);
            M->ovals[M->no] = (int)bv;
            M->no++;
        }
    }
    int owned = M->no > 0;
    /* per build value: the unions of the loose subsets (table_only) and of the builds */
    Vec *ul0s = (Vec *)arena_alloc(ar, (sizeof(Vec) * (MAXV + 1) + 7) / 8);
    Vec *ub0s = (Vec *)arena_alloc(ar, (sizeof(Vec) * (MAXV + 1) + 7) / 8);
    char done[MAXV + 1];
    if (ul0s == NULL || ub0s == NULL)
        goto nomem;
    memset(done, 0, sizeof(done));
    for (int hi = 0; hi < nh; hi++) {
        int card = M->hcard[hi];
        /* ---- captures */
        if (n) {
            int ncv = mv->ncap[card];
            if (!ncv) { /* a court card without a value: one loose card of its rank */
                int r = card >> 2;
                for (int i = 0; i < nl; i++) {
                    if (tcard[i] >> 2 != r)
                        continue;
                    int ok = owned ? answers_left(M, hi, (u64)1 << i, 0) : 1;
                    if (ok < 0)
                        return -1;
                    if (ok && !out_push(out, capture_move(card, (u64)1 << i)))
                        return 0;
                }
            } else {
                Vec allm;
                if (!vec_init(&allm, ar, 32))
                    goto nomem;
                for (int ci = 0; ci < ncv; ci++) {
                    int v = mv->cap[card][ci];
                    const Vec *s = subs_multi(M, v);
                    if (s == NULL)
                        goto nomem;
                    Vec groups;
                    if (!vec_init(&groups, ar, s->n + 8))
                        goto nomem;
                    if (s->n)
                        memcpy(groups.a, s->a, s->n * sizeof(u64));
                    groups.n = s->n;
                    if (v != mv->low[card]) { /* a high value: loose cards of its rank too */
                        int r = card >> 2;
                        for (int i = 0; i < nl; i++) {
                            if (tcard[i] >> 2 != r)
                                continue;
                            u64 bit = (u64)1 << i;
                            int in = 0;
                            for (size_t g = 0; g < groups.n; g++)
                                if (groups.a[g] == bit) {
                                    in = 1;
                                    break;
                                }
                            if (!in && !vec_push(&groups, ar, bit))
                                goto nomem;
                        }
                    }
                    for (int j = 0; j < nb; j++)
                        if (M->bvals[j] == v && !vec_push(&groups, ar, (u64)1 << (nl + j)))
                            goto nomem;
                    Vec us;
                    if (!unions(ar, groups.a, groups.n, &us))
                        goto nomem;
                    for (size_t i = 1; i < us.n; i++) /* (us.a[0] is the empty union) */
                        if (!vec_push(&allm, ar, us.a[i]))
                            goto nomem;
                }
                sort_masks(allm.a, allm.n);
                for (size_t i = 0; i < allm.n; i++) {
                    u64 m = allm.a[i];
                    if (i && m == allm.a[i - 1])
                        continue; /* each mask once */
                    int ok = owned ? answers_left(M, hi, m, 0) : 1;
                    if (ok < 0)
                        return -1;
                    if (ok && !out_push(out, capture_move(card, m)))
                        return 0;
                }
            }
        }
        /* ---- builds */
        int ncomp = mv->ntab[card];
        if (building && n && ncomp) {
            const int *comp = mv->tab[card];
            int hv_min = comp[0];
            for (int i = 1; i < ncomp; i++)
                if (comp[i] < hv_min)
                    hv_min = comp[i];
            int holders[MAXP * MV];
            int nholders = 0;
            for (int j = 0; j < nh; j++) {
                if (j == hi)
                    continue;
                int c = M->hcard[j];
                for (int i = 0; i < mv->ncap[c]; i++) {
                    int w = mv->cap[c][i];
                    if (w < hv_min)
                        continue;
                    int k = 0;
                    while (k < nholders && holders[k] < w)
                        k++;
                    if (k == nholders || holders[k] != w) {
                        memmove(&holders[k + 1], &holders[k],
                                (size_t)(nholders - k) * sizeof(int));
                        holders[k] = w;
                        nholders++;
                    }
                }
            }
            for (int ti = 0; ti < nholders; ti++) {
                int v = holders[ti];
                Vec *ul0 = &ul0s[v], *ub0 = &ub0s[v];
                if (!done[v]) { /* the same for every hand card */
                    if (table_only) {
                        const Vec *s = subs_multi(M, v);
                        if (s == NULL || !unions(ar, s->a, s->n, ul0))
                            goto nomem;
                    } else if (!vec_init(ul0, ar, 1) || !vec_push(ul0, ar, 0)) {
                        goto nomem;
                    }
                    u64 bgs[MAXP];
                    size_t nbgs = 0;
                    for (int j = 0; j < nb; j++)
                        if (M->bvals[j] == v)
                            bgs[nbgs++] = (u64)1 << (nl + j);
                    if (!unions(ar, bgs, nbgs, ub0)) /* (none: [0]) */
                        goto nomem;
                    done[v] = 1;
                }
                Vec found; /* keyed as in join */
                if (!vec_init(&found, ar, 32))
                    goto nomem;
                for (int ci = 0; ci < ncomp; ci++) {
                    int hv = comp[ci];
                    if (hv > v)
                        continue;
                    int d = v - hv;
                    static const u64 zero = 0;
                    const u64 *hg = &zero;
                    size_t nhg = 1;
                    Vec hgv;
                    if (d) {
                        const Vec *s = subs_multi(M, d);
                        if (s == NULL || !vec_init(&hgv, ar, s->n + 4))
                            goto nomem;
                        if (s->n)
                            memcpy(hgv.a, s->a, s->n * sizeof(u64));
                        hgv.n = s->n;
                        for (int j = 0; j < nb; j++)
                            if (M->bsingle[j] && M->bvals[j] == d
                                    && !vec_push(&hgv, ar, (u64)1 << (nl + j)))
                                goto nomem;
                        hg = hgv.a;
                        nhg = hgv.n;
                    }
                    for (size_t i = 0; i < nhg; i++) {
                        u64 h = hg[i];
                        for (size_t b = 0; b < ub0->n; b++) {
                            u64 bu = ub0->a[b];
                            if (bu & h)
                                continue;
                            u64 hb = h | bu;
                            for (size_t k = 0; k < ul0->n; k++) {
                                u64 u = ul0->a[k];
                                if (u & hb)
                                    continue;
                                u64 m = hb | u;
                                if (m && !vec_push(&found, ar,
                                                   mask_key(m) << 1 | (bu == 0 && u == 0)))
                                    goto nomem;
                            }
                        }
                    }
                }
                u64 *fs = found.a;
                size_t nk = found.n;
                sort_u64(fs, nk); /* the canonical order; a mask's entries side by side */
                for (size_t i = 0; i < nk;) {
                    u64 key = fs[i] >> 1;
                    int single = 0;
                    while (i < nk && fs[i] >> 1 == key) {
                        single |= (int)(fs[i] & 1);
                        i++;
                    }
                    u64 m = key & MASK_BITS;
                    int ok = owned ? answers_left(M, hi, m, v) : 1;
                    if (ok < 0)
                        return -1;
                    if (ok && !out_push(out, build_move(card, m, v, single)))
                        return 0;
                }
            }
        }
        if (!owned) {
            PyObject *t = PyList_GET_ITEM(g_trails, card);
            Py_INCREF(t);
            if (!out_push(out, t))
                return 0;
        }
    }
    if (out->n == 0)
        *none = 1; /* the general generator decides */
    return 1;
nomem:
    PyErr_NoMemory();
    return 0;
}

/* ---- the functions this module offers ---- */

/* has setup() given this module _hot's function (its fallback)? */
static int ready(PyObject *fallback) {
    if (fallback != NULL)
        return 1;
    PyErr_SetString(PyExc_RuntimeError, "casino_tui.engine._cgen: setup() was not called");
    return 0;
}

static PyObject *generate_for(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (!ready(g_fallback))
        return NULL;
    if (nargs < 9 || nargs > 10)
        return PyObject_Vectorcall(g_fallback, args, (size_t)nargs, NULL);
    u64 stack[STACK_WORDS];
    Arena ar = {stack, 0, STACK_WORDS, NULL};
    Pos *P = (Pos *)arena_alloc(&ar, (sizeof(Pos) + 7) / 8);
    Out out;
    out.a = out.stack;
    out.n = 0;
    out.cap = 128;
    int none = 0;
    P->ar = &ar;
    int ok = generate(args, &out, P, &none);
    if (ok == 2) { /* (nothing is in out yet) */
        PyObject *multi = nargs == 10 ? args[9] : Py_None;
        const Multi *mv = multi == Py_None ? NULL : multi_of(multi);
        if (multi == Py_None) {
            none = 1; /* as _hot: without the rules' values, the general generator decides */
            ok = 1;
        } else {
            ok = mv == NULL ? -1 : generate_multi(args, mv, &out, &ar, &none);
        }
    }
    arena_free(&ar);
    if (ok < 0) {
        out_free(&out);
        PyErr_Clear(); /* a value this generator does not take: _hot decides */
        return PyObject_Vectorcall(g_fallback, args, (size_t)nargs, NULL);
    }
    if (ok == 0) {
        out_free(&out);
        return NULL;
    }
    if (none) {
        out_free(&out);
        Py_RETURN_NONE;
    }
    PyObject *list = PyList_New(out.n);
    if (list == NULL) {
        out_free(&out);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < out.n; i++)
        PyList_SET_ITEM(list, i, out.a[i]); /* steals */
    if (out.a != out.stack)
        free(out.a);
    return list;
}

/* ---- playing a move on the table ---- */

static int is_kind(PyObject *kind, PyObject *name) {
    if (kind == name)
        return 1;
    if (!PyUnicode_CheckExact(kind))
        return 0;
    if (PyUnicode_CHECK_INTERNED(kind) && PyUnicode_CHECK_INTERNED(name))
        return 0; /* (two interned strings are equal only if they are the same object) */
    return PyUnicode_Compare(kind, name) == 0;
}

/* The table after a trail, capture or build, as _hot.play_on_table makes it: a new list, with the new build (a new reference) in *build for a build, else NULL; a capture's
 * cards (the played card last) are appended to taken (and to also, a list, if not NULL). NULL with an error set on an error, NULL
 * with none set when this is not a move it takes (then _hot decides). */
static PyObject *table_after(PyObject *table, PyObject *move, PyObject *owner, PyObject *taken,
                             PyObject *also, PyObject **build_out) {
    *build_out = NULL;
    if (!PyList_CheckExact(table) || !PyTuple_Check(move) || PyTuple_GET_SIZE(move) < 6
            || !PyList_CheckExact(taken))
        return NULL;
    PyObject *kind = PyTuple_GET_ITEM(move, 0), *cardo = PyTuple_GET_ITEM(move, 1);
    Py_ssize_t n = PyList_GET_SIZE(table);
    int card = card_of(cardo);
    if (card < 0)
        return NULL;
    if (is_kind(kind, s_trail)) {
        PyObject *out = PyList_New(n + 1);
        if (out == NULL)
            return NULL;
        Py_ssize_t i = 0;
        while (i < n) {
            PyObject *p = PyList_GET_ITEM(table, i);
            if (!PyLong_Check(p))
                break;
            int pc = card_of(p);
            if (pc < 0) { /* (not a card: as _hot, by its int value) */
                long x = PyLong_AsLong(p);
                if (x == -1 && PyErr_Occurred()) {
                    Py_DECREF(out);
                    return NULL;
                }
                if (x > card)
                    break;
            } else if (pc > card) {
                break;
            }
            PyList_SET_ITEM(out, i, Py_NewRef(p));
            i++;
        }
        PyList_SET_ITEM(out, i, Py_NewRef(cardo));
        for (; i < n; i++)
            PyList_SET_ITEM(out, i + 1, Py_NewRef(PyList_GET_ITEM(table, i)));
        if (PyErr_Occurred()) {
            Py_DECREF(out);
            return NULL;
        }
        return out;
    }
    int capture = is_kind(kind, s_capture);
    if (!capture && !is_kind(kind, s_build))
        return NULL;
    PyObject *piles = PyTuple_GET_ITEM(move, 2);
    if (!PyTuple_Check(piles) || n > MAXP)
        return NULL;
    u64 mask = 0;
    Py_ssize_t np_ = PyTuple_GET_SIZE(piles);
    for (Py_ssize_t k = 0; k < np_; k++) {
        long i = PyLong_AsLong(PyTuple_GET_ITEM(piles, k));
        if (i < 0 || i >= n) {
            PyErr_Clear();
            return NULL;
        }
        mask |= (u64)1 << i;
    }
    /* the lists are made at their final size: the piles kept, the cards played together */
    Py_ssize_t nkeep = 0, ncards = 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *p = PyList_GET_ITEM(table, i);
        if (!(mask >> i & 1)) {
            nkeep++;
        } else if (PyLong_Check(p)) {
            ncards++;
        } else {
            PyObject *pc = PyTuple_Check(p) && PyTuple_GET_SIZE(p) > 0
                ? PyTuple_GET_ITEM(p, 0) : NULL;
            if (pc == NULL || !PyTuple_Check(pc)) {
                PyErr_SetString(PyExc_TypeError, "play_on_table: a pile is not a card or a build");
                return NULL;
            }
            ncards += PyTuple_GET_SIZE(pc);
        }
    }
    PyObject *keep = PyList_New(nkeep + (capture ? 0 : 1)); /* (a build: the new one last) */
    /* a capture's cards are gathered here (borrowed), then appended to taken (and also); a
     * build's go into its tuple */
    PyObject *got[NCARDS + 1];
    if (capture && ncards > NCARDS + 1) {
        Py_XDECREF(keep);
        return NULL; /* (more cards than a deck: _hot's) */
    }
    PyObject *cards = capture ? NULL : PyTuple_New(ncards);
    PyObject *build = NULL;
    if (keep == NULL || (!capture && cards == NULL))
        goto fail;
    {
        Py_ssize_t k = 0, c = 0;
        PyObject **cs = capture ? got : &PyTuple_GET_ITEM(cards, 0);
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *p = PyList_GET_ITEM(table, i);
            if (!(mask >> i & 1)) {
                PyList_SET_ITEM(keep, k++, Py_NewRef(p));
            } else if (PyLong_Check(p)) {
                cs[c++] = p;
            } else {
                PyObject *pc = PyTuple_GET_ITEM(p, 0);
                for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(pc); j++)
                    cs[c++] = PyTuple_GET_ITEM(pc, j);
            }
        }
        cs[c] = cardo;
        if (!capture)
            for (Py_ssize_t j = 0; j < ncards; j++)
                Py_INCREF(cs[j]);
    }
    if (capture) {
        for (Py_ssize_t j = 0; j < ncards; j++)
            if (PyList_Append(taken, got[j]) < 0 || (also != NULL
                                                     && PyList_Append(also, got[j]) < 0))
                goto fail;
        return keep;
    }
    {
        PyObject *value = PyTuple_GET_ITEM(move, 3);
        int truth = value == Py_None ? 0 : PyObject_IsTrue(value);
        int single = PyObject_IsTrue(PyTuple_GET_ITEM(move, 4));
        if (truth < 0 || single < 0)
            goto fail;
        build = g_build_type->tp_alloc(g_build_type, 5);
        if (build == NULL)
            goto fail;
        PyTuple_SET_ITEM(build, 0, Py_NewRef(cards));
        PyTuple_SET_ITEM(build, 1, truth ? Py_NewRef(value) : PyLong_FromLong(0));
        PyTuple_SET_ITEM(build, 2, Py_NewRef(single ? Py_True : Py_False));
        PyTuple_SET_ITEM(build, 3, Py_NewRef(owner));
        PyTuple_SET_ITEM(build, 4, Py_NewRef(PyTuple_GET_ITEM(move, 5)));
        if (PyTuple_GET_ITEM(build, 1) == NULL)
            goto fail;
        PyList_SET_ITEM(keep, nkeep, Py_NewRef(build));
        /* cards, ints and bools only (the cards a tuple of ints): no cycle through it */
        PyObject_GC_UnTrack(cards);
        PyObject_GC_UnTrack(build);
        Py_DECREF(cards);
        *build_out = build;
        return keep;
    }
fail:
    Py_XDECREF(cards);
    Py_XDECREF(build);
    Py_XDECREF(keep);
    if (!PyErr_Occurred())
        PyErr_NoMemory();
    return NULL;
}

/* _hot.play_on_table(table, move, owner, taken): the table after a trail, capture or build
 * (captured cards appended to taken) and the new build or None; anything else is _hot's */
static PyObject *play_on_table(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (!ready(g_play))
        return NULL;
    if (nargs != 4)
        return PyObject_Vectorcall(g_play, args, (size_t)nargs, NULL);
    PyObject *build;
    PyObject *out = table_after(args[0], args[1], args[2], args[3], NULL, &build);
    if (out == NULL)
        return PyErr_Occurred() ? NULL : PyObject_Vectorcall(g_play, args, (size_t)nargs, NULL);
    PyObject *res = PyTuple_Pack(2, out, build == NULL ? Py_None : build);
    Py_DECREF(out);
    Py_XDECREF(build);
    return res;
}
/* _hot.play_card(table, hand, move, owner, taken, captured): the new table made as
 * play_on_table makes it (returned), a capture's cards appended to taken (empty) and to
 * captured, then the card taken out of the hand; anything this does not take (the card not in
 * hand: ValueError there) is _hot's */
static PyObject *play_card(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (!ready(g_play_card))
        return NULL;
    if (nargs != 6 || !PyList_CheckExact(args[1]) || !PyTuple_Check(args[2])
            || PyTuple_GET_SIZE(args[2]) < 6 || !PyList_CheckExact(args[4])
            || !PyList_CheckExact(args[5]))
        return PyObject_Vectorcall(g_play_card, args, (size_t)nargs, NULL);
    PyObject *hand = args[1], *move = args[2], *taken = args[4], *captured = args[5];
    int card = card_of(PyTuple_GET_ITEM(move, 1));
    if (card < 0)
        return PyObject_Vectorcall(g_play_card, args, (size_t)nargs, NULL);
    Py_ssize_t nh = PyList_GET_SIZE(hand), hi = 0;
    PyObject **h = ((PyListObject *)hand)->ob_item;
    while (hi < nh && card_of(h[hi]) != card)
        hi++;
    if (hi == nh) /* (not in hand, or a hand holding something else: _hot's) */
        return PyObject_Vectorcall(g_play_card, args, (size_t)nargs, NULL);
    PyObject *build;
    PyObject *out = table_after(args[0], move, args[3], taken, captured, &build);
    if (out == NULL)
        return PyErr_Occurred() ? NULL
            : PyObject_Vectorcall(g_play_card, args, (size_t)nargs, NULL);
    Py_XDECREF(build); /* (the table holds it) */
    /* the table is made: now the hand and the captured pile change */
    PyObject *gone = h[hi];
    memmove(&h[hi], &h[hi + 1], (size_t)(nh - hi - 1) * sizeof(PyObject *));
    Py_SET_SIZE(hand, nh - 1); /* (a list may hold more room than it uses) */
    Py_DECREF(gone);
    return out;
}

/* ---- the order of a shuffled deck ---- */

/* _hot.order_by_keys(deck, keys): the cards sorted by their keys, equal keys in deck order (an
 * insertion sort: stable, and a deck has at most 52 cards) */
static PyObject *order_by_keys(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (!ready(g_order))
        return NULL;
    if (nargs != 2 || !PyTuple_CheckExact(args[0]) || !PyList_CheckExact(args[1])
            || PyTuple_GET_SIZE(args[0]) != PyList_GET_SIZE(args[1])
            || PyTuple_GET_SIZE(args[0]) > MAXP)
        return PyObject_Vectorcall(g_order, args, (size_t)nargs, NULL);
    PyObject *deck = args[0], *keys = args[1];
    Py_ssize_t n = PyTuple_GET_SIZE(deck);
    double key[MAXP];
    int idx[MAXP];
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *k = PyList_GET_ITEM(keys, i);
        if (!PyFloat_CheckExact(k))
            return PyObject_Vectorcall(g_order, args, (size_t)nargs, NULL);
        double x = PyFloat_AS_DOUBLE(k);
        Py_ssize_t j = i;
        while (j > 0 && x < key[j - 1]) {
            key[j] = key[j - 1];
            idx[j] = idx[j - 1];
            j--;
        }
        key[j] = x;
        idx[j] = (int)i;
    }
    PyObject *out = PyList_New(n);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++)
        PyList_SET_ITEM(out, i, Py_NewRef(PyTuple_GET_ITEM(deck, idx[i])));
    return out;
}

/* _hot.shuffled(deck, random): the cards ordered by a key from random() each, drawn in deck
 * order (the calls made from here, without a list of keys in between); anything but a tuple
 * of at most 64 cards: the keys are drawn the same way and _hot.order_by_keys orders them */
static PyObject *shuffled(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (!ready(g_order))
        return NULL;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "shuffled(deck, random)");
        return NULL;
    }
    PyObject *deck = args[0], *rnd = args[1];
    if (!PyTuple_CheckExact(deck) || PyTuple_GET_SIZE(deck) > MAXP) {
        Py_ssize_t n = PyObject_Length(deck);
        if (n < 0)
            return NULL;
        PyObject *keys = PyList_New(n);
        if (keys == NULL)
            return NULL;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *k = PyObject_CallNoArgs(rnd);
            if (k == NULL) {
                Py_DECREF(keys);
                return NULL;
            }
            PyList_SET_ITEM(keys, i, k);
        }
        PyObject *call[2] = {deck, keys};
        PyObject *res = PyObject_Vectorcall(g_order, call, 2, NULL);
        Py_DECREF(keys);
        return res;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(deck);
    double key[MAXP];
    int idx[MAXP];
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *k = PyObject_CallNoArgs(rnd);
        if (k == NULL)
            return NULL;
        double x = PyFloat_CheckExact(k) ? PyFloat_AS_DOUBLE(k) : PyFloat_AsDouble(k);
        Py_DECREF(k);
        if (x == -1.0 && PyErr_Occurred())
            return NULL;
        Py_ssize_t j = i; /* (an insertion sort, as order_by_keys) */
        while (j > 0 && x < key[j - 1]) {
            key[j] = key[j - 1];
            idx[j] = idx[j - 1];
            j--;
        }
        key[j] = x;
        idx[j] = (int)i;
    }
    PyObject *out = PyList_New(n);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++)
        PyList_SET_ITEM(out, i, Py_NewRef(PyTuple_GET_ITEM(deck, idx[i])));
    return out;
}

/* ---- a seeded shuffle: CPython's Mersenne Twister here ---- */

/* MT19937 as CPython's _randommodule.c has it (init_genrand, init_by_array, genrand_uint32,
 * random()), so that a generator seeded here with an integer draws exactly the numbers
 * random.Random(that integer) draws, for the first 227 words (all a shuffle needs): the
 * starting state is made once, and only the words drawn are twisted. state.py checks at
 * import that the two agree on this Python before it uses shuffled_seeded (else it shuffles
 * with random.Random itself). */
#define MT_N 624
#define MT_M 397
/* a shuffle draws two words a card from a fresh seeding: 2 * MAXP words, all of them among
 * the first MT_N - MT_M (see mt_first) */
#if 2 * MAXP > MT_N - MT_M
#error "a deck of MAXP cards draws more words than mt_first gives"
#endif

typedef struct {
    uint32_t mt[MT_N];
    int index;
} Twister;

/* init_genrand(19650218), where every seeding starts: the same words each time, made once */
static uint32_t mt_start[MT_N];
static int mt_start_made = 0;

static void mt_init_by_array(Twister *r, const uint32_t *key, size_t len) {
    uint32_t *mt = r->mt;
    if (!mt_start_made) {
        mt_start[0] = 19650218U;
        for (int i = 1; i < MT_N; i++)
            mt_start[i] = 1812433253U * (mt_start[i - 1] ^ (mt_start[i - 1] >> 30)) + (uint32_t)i;
        mt_start_made = 1;
    }
    memcpy(mt, mt_start, sizeof mt_start);
    /* (CPython's two loops, each in runs up to the end of the state, where it wraps) */
    size_t i = 1, j = 0;
    for (size_t k = MT_N > len ? MT_N : len; k;) {
        size_t run = MT_N - i < k ? MT_N - i : k;
        k -= run;
        for (; run; run--, i++) {
            mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525U)) + key[j]
                    + (uint32_t)j;
            if (++j >= len)
                j = 0;
        }
        if (i >= MT_N) {
            mt[0] = mt[MT_N - 1];
            i = 1;
        }
    }
    for (size_t k = MT_N - 1; k;) {
        size_t run = MT_N - i < k ? MT_N - i : k;
        k -= run;
        for (; run; run--, i++)
            mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941U)) - (uint32_t)i;
        if (i >= MT_N) {
            mt[0] = mt[MT_N - 1];
            i = 1;
        }
    }
    mt[0] = 0x80000000U;
    r->index = 0; /* (no word twisted yet: mt_first twists them one at a time) */
}

/* The first MT_N - MT_M words after a seeding (CPython's genrand_uint32 twists all MT_N
 * words at its first call; word kk < MT_N - MT_M of that twist reads only words kk, kk + 1
 * and kk + MT_M of the seeded state, none of them twisted yet, so each is twisted when it is
 * drawn: the same words, without the rest of the twist). */
static uint32_t mt_first(Twister *r) {
    static const uint32_t mag01[2] = {0x0U, 0x9908b0dfU};
    uint32_t *mt = r->mt;
    int kk = r->index++;
    uint32_t y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
    y = mt[kk] = mt[kk + MT_M] ^ (y >> 1) ^ mag01[y & 0x1U];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

static double mt_random(Twister *r) {
    uint32_t a = mt_first(r) >> 5, b = mt_first(r) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

/* _hot.shuffled_seeded(deck, seed): _hot.shuffled(deck, random.Random(n).random) for n the
 * integer whose big-endian bytes are seed (as random.seed(n) makes its key: n's 32-bit words,
 * least significant first, at least one) */
static PyObject *shuffled_seeded(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2 || !PyTuple_CheckExact(args[0]) || PyTuple_GET_SIZE(args[0]) > MAXP
            || !PyBytes_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "shuffled_seeded(deck, seed): a tuple of at most 64 "
                                         "cards and bytes");
        return NULL;
    }
    PyObject *deck = args[0];
    const unsigned char *b = (const unsigned char *)PyBytes_AS_STRING(args[1]);
    Py_ssize_t len = PyBytes_GET_SIZE(args[1]), s = 0;
    while (s < len && b[s] == 0) /* leading zero bytes: not part of the integer */
        s++;
    /* the integer's 32-bit words (its top byte is not zero: as many as its bit length needs) */
    size_t words = len - s == 0 ? 1 : (size_t)(len - s + 3) / 4;
    uint32_t small[64], *key = small;
    if (words > 64) {
        key = PyMem_Calloc(words, sizeof(uint32_t));
        if (key == NULL)
            return PyErr_NoMemory();
    }
    else
        memset(small, 0, sizeof small);
    for (Py_ssize_t k = 0; k < len - s; k++) /* byte k from the least significant end */
        key[k / 4] |= (uint32_t)b[len - 1 - k] << (8 * (k % 4));
    Twister r;
    mt_init_by_array(&r, key, words);
    if (key != small)
        PyMem_Free(key);
    Py_ssize_t n = PyTuple_GET_SIZE(deck);
    /* the cards ordered by their keys, equal keys in deck order (as order_by_keys): first by
     * the key's 64th of [0, 1) in deck order (a counting sort, stable), then an insertion sort,
     * which moves a card only past greater keys of its own 64th (so few moves) */
    double kv[MAXP];
    int idx[MAXP], start[65] = {0};
    unsigned char bucket[MAXP];
    for (Py_ssize_t i = 0; i < n; i++) {
        kv[i] = mt_random(&r); /* (in [0, 1): its 64th is 0 to 63) */
        bucket[i] = (unsigned char)(kv[i] * 64.0);
        start[bucket[i] + 1]++;
    }
    for (int b = 1; b < 65; b++)
        start[b] += start[b - 1];
    for (Py_ssize_t i = 0; i < n; i++)
        idx[start[bucket[i]]++] = (int)i;
    for (Py_ssize_t i = 1; i < n; i++) {
        int v = idx[i];
        double x = kv[v];
        Py_ssize_t j = i;
        while (j > 0 && x < kv[idx[j - 1]]) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = v;
    }
    PyObject *out = PyList_New(n);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++)
        PyList_SET_ITEM(out, i, Py_NewRef(PyTuple_GET_ITEM(deck, idx[i])));
    return out;
}

static PyObject *setup(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 7 || !PyType_Check(args[3])
            || !PyType_IsSubtype((PyTypeObject *)args[3], &PyTuple_Type)
            || !PyType_Check(args[4])
            || !PyType_IsSubtype((PyTypeObject *)args[4], &PyTuple_Type)
            || !PyList_CheckExact(args[5]) || PyList_GET_SIZE(args[5]) < NCARDS) {
        PyErr_SetString(PyExc_TypeError, "setup(generate_for, play_on_table, order_by_keys, "
                                         "Move, Build, trails, play_card): Move and Build are "
                                         "tuple types, trails a list of 52 moves");
        return NULL;
    }
    if (s_capture == NULL) {
        s_capture = PyUnicode_InternFromString("capture");
        s_build = PyUnicode_InternFromString("build");
        s_trail = PyUnicode_InternFromString("trail");
        if (s_capture == NULL || s_build == NULL || s_trail == NULL)
            return NULL;
    }
    Py_XSETREF(g_fallback, Py_NewRef(args[0]));
    Py_XSETREF(g_play, Py_NewRef(args[1]));
    Py_XSETREF(g_order, Py_NewRef(args[2]));
    Py_XSETREF(g_move_type, (PyTypeObject *)Py_NewRef(args[3]));
    Py_XSETREF(g_build_type, (PyTypeObject *)Py_NewRef(args[4]));
    Py_XSETREF(g_trails, Py_NewRef(args[5]));
    Py_XSETREF(g_play_card, Py_NewRef(args[6]));
    PyObject *t0 = PyList_GET_ITEM(g_trails, 0);
    if (PyTuple_Check(t0) && PyTuple_GET_SIZE(t0) > 0 && PyUnicode_CheckExact(PyTuple_GET_ITEM(t0, 0)))
        Py_XSETREF(s_trail, Py_NewRef(PyTuple_GET_ITEM(t0, 0))); /* the very string trails hold */
    /* moves made for an earlier setup may be of another Move type: start afresh */
    for (int c = 0; c < NCARDS; c++)
        for (int m = 0; m < SMALL; m++)
            Py_CLEAR(caps_small[c][m]);
    for (int i = 0; i < NCARDS * 32; i++) {
        PyObject **row = builds_small[i];
        if (row == NULL)
            continue;
        for (int k = 0; k < SMALL * 2; k++)
            Py_CLEAR(row[k]);
    }
    if (big != NULL) {
        for (size_t i = 0; i < BIG_SLOTS; i++)
            Py_CLEAR(big[i].mv);
        memset(big, 0, BIG_SLOTS * sizeof(BigSlot));
        big_kept = 0;
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"generate_for", (PyCFunction)(void (*)(void))generate_for, METH_FASTCALL,
     "generate_for(table, hand, mover, pv, tv1, maxv, table_only, building, owner_rules, "
     "multi=None): the legal moves, exactly as casino_tui.engine._hot.generate_for."},
    {"setup", (PyCFunction)(void (*)(void))setup, METH_FASTCALL,
     "setup(generate_for, play_on_table, order_by_keys, Move, Build, trails, play_card): "
     "_hot's functions (for what this module hands on), the Move and Build types and _hot's "
     "trails."},
    {"order_by_keys", (PyCFunction)(void (*)(void))order_by_keys, METH_FASTCALL,
     "order_by_keys(deck, keys): exactly as casino_tui.engine._hot.order_by_keys."},
    {"shuffled", (PyCFunction)(void (*)(void))shuffled, METH_FASTCALL,
     "shuffled(deck, random): exactly as casino_tui.engine._hot.shuffled."},
    {"shuffled_seeded", (PyCFunction)(void (*)(void))shuffled_seeded, METH_FASTCALL,
     "shuffled_seeded(deck, seed): exactly as casino_tui.engine._hot.shuffled_seeded."},
    {"play_card", (PyCFunction)(void (*)(void))play_card, METH_FASTCALL,
     "play_card(table, hand, move, owner, taken, captured): exactly as "
     "casino_tui.engine._hot.play_card."},
    {"play_on_table", (PyCFunction)(void (*)(void))play_on_table, METH_FASTCALL,
     "play_on_table(table, move, owner, taken): exactly as "
     "casino_tui.engine._hot.play_on_table."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_cgen",
    "The engine's hot path of move generation in C (see _cgen.c).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cgen(void) { return PyModule_Create(&module); }
