/* efc_tui._speedups: the compiled fast path of the per-event text work (issue 13).
 *
 * Built at install time with the machine's C compiler (hatch_build.py); when it is not
 * built, or EFC_TUI_PURE_PYTHON=1 is set, efc_tui uses the pure-Python code it mirrors,
 * which gives bit-identical results (tests/compiled/test_speedups.py compares full ledgers).
 *
 * Why C (issue 34): each kernel here was measured against pure Python and against the same
 * Python compiled unchanged by Cython 3.3 and mypyc 2.4 (docs/speed.md, "The compiled
 * path"); only these kept `score` within 5x a bare parse, whose budget is ~11 us an event
 * in all. Compiling the Python gains nothing on them (0.8-1.2x): their time is in building
 * and hashing str, bytes and tuple objects, which the C avoids, not in the interpreter.
 * The rules in them are given by the Python that defines them, or called back.
 *
 *   feature_pass(events, target, error_signature)  scoring/features.py, the loop of
 *       compute_features: novelty n from shingles, q and repeated actions, checks, Δ,
 *       a and repeated errors, memory/plan/compaction signals, the plan-change signature,
 *       and both passes of z (refs, then tokens cited by later actions). What holds a
 *       rule is Python's, called from here: error_signature (the exception-line regex),
 *       target (an action's target); an action's distinctive tokens are found here, with
 *       the token characters, MIN_TOKEN and _EDGE of features.py (set_tokens). Measured
 *       on the bench's 20k-event trace: 0.05 s here, 0.38-0.44 s in Python, 0.37 s
 *       Cython-compiled, 0.50 s mypyc-compiled.
 *   event_columns(events, kinds, statuses)  scoring/event_columns.py: the numbers raw
 *       cost, the gates and the harness quantities read of every event (kind, status,
 *       tokens, tool calls, wall time, operations), in one pass over the slots. No rule:
 *       what takes the time in Python is a call per event per column (np.fromiter over
 *       attrgetter): 0.038-0.044 s of score_bench's 100k events, 0.007 s here.
 *   no_hints(text)  parsers/status.py: true when neither a test summary nor a failure
 *       hint can be in the text (the substring pre-filters of parse_checks and
 *       _has_failure_hint), so the classifier needs no regular expression. The hint
 *       lists are status.py's (set_hints). 1.5 us for an 850-character observation here,
 *       47 us in Python (125 substring searches), 116 us as one regular expression.
 *   found_hints(text)  parsers/status.py: the rules' hints the same scan finds in a text:
 *       a rule none of whose keys is there is skipped, not searched key by key.
 *   json_depth(obj, past)  parsers/_values.depth: how deep a parsed JSON value nests, for
 *       the readers' depth check. No rule: bracket counting and the Python walk were
 *       0.13 s of 80 generated Claude Code sessions' reading, 0.066 s with this.
 *   contains(haystack, needle)  parsers/sniffs.has: ``needle in haystack`` of two bytes
 *       objects, by the C library's memmem. No rule: detection asks a file's 64 KB head
 *       for its formats' JSON keys, where CPython's own search is slow (14-35 us a key on
 *       a SWE-agent trajectory's head: short, quote-led keys of the letters JSON is full
 *       of); memmem takes 5-11 us.
 *   decide_pass(...)  adapter/decide.py, the run figures of decide's per-event loop
 *       (score's summary): memory gating's counts, the first pass and roll-back, the
 *       steps with ranked alternatives. No Decision and no reason: Python builds and
 *       words those (DecideState) when they are read. 0.005 s for 20k events here,
 *       0.10 s in Python, 0.13 s Cython-compiled.
 *
 * The passes read the fields of Event and Checks instances straight from their slots
 * (SlotReader, set up from _fast.py), other objects through getattr.
 *
 * Shingles are compared by a 64-bit hash of their code points here and by Python's hash()
 * there: two different lines count as one only on a 64-bit collision, in either path.
 * Everything else (q's action keys, observation hashes, error signatures) uses Python's
 * own hash and equality, so it is identical even then.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)0)
#endif

#ifndef EFC_SOURCE_HASH
#define EFC_SOURCE_HASH "unknown"
#endif

/* ---------------------------------------------------------------- character classes */

static unsigned char SPACE1[256]; /* str.isspace / str.strip / str.split, code points < 256 */
static unsigned char BREAK1[256]; /* str.splitlines boundaries, code points < 256 */

/* features._TOKEN_TABLE's token characters, MIN_TOKEN and _EDGE, given by set_tokens (part
 * of the module state) */
typedef struct {
    unsigned char is[256];   /* is[c]: c is a token character */
    unsigned char edge[256]; /* edge[c]: a distinctive token is also kept without c at its ends */
    Py_ssize_t min_len;      /* a distinctive token's fewest UTF-8 bytes */
    int set;                 /* until set_tokens() is called, feature_pass declines */
    int swar;                /* its ASCII token characters are token_bits8's: the 8-wide path */
} Tokens;

static int swar_token(unsigned c) { /* token_bits8's class, one char */
    return (c >= 0x2d && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || c == 0x5f || (c >= 0x61 && c <= 0x7a);
}

static inline int is_space(Py_UCS4 c) { return c < 256 ? SPACE1[c] : Py_UNICODE_ISSPACE(c); }
static inline int is_break(Py_UCS4 c) { return c < 256 ? BREAK1[c] : Py_UNICODE_ISLINEBREAK(c); }
static inline int is_token(const Tokens *tk, Py_UCS4 c) { return c >= 256 || tk->is[c]; }

static void init_tables(void) {
    for (Py_UCS4 c = 0; c < 256; c++) {
        SPACE1[c] = (unsigned char)(Py_UNICODE_ISSPACE(c) ? 1 : 0);
        BREAK1[c] = (unsigned char)(Py_UNICODE_ISLINEBREAK(c) ? 1 : 0);
    }
}

/* ---------------------------------------------------------------- the module's own state */

/* What the Python that defines a rule gives the kernels at import (set_tokens, set_hints,
 * setup_decide), held in the module object's state, not in process-wide statics. */

#define G_CHECK 1  /* parse_checks: the summary hints in the tail */
#define G_ERROR 2  /* parse_checks: the pair's first ("error") ... */
#define G_EQEQ 4   /* ... with its second ("==") in the tail */
#define G_FAIL 8   /* _has_failure_hint: the rules' hints in the head or the tail */

typedef struct {
    const char *s;
    int group;
} Needle;

#define MAX_NEEDLES 160
#define MAX_WIDE_CHARS 16

/* A set of needles (Latin-1, all >= 4 long), filtered by a hash of their first four bytes:
 * a position is compared only when its four bytes hash to a needle's, and then only with
 * the needles of that hash's chain (by its low 8 bits), not all of them. */
typedef struct {
    uint64_t bloom[65536 / 64];
    const Needle *list[MAX_NEEDLES];
    uint32_t head[MAX_NEEDLES];
    size_t len[MAX_NEEDLES];
    int16_t chain[256];          /* 1 + the first needle of each chain; 0: none */
    int16_t next[MAX_NEEDLES];   /* 1 + the next needle of its chain; 0: the last */
    int n;
} NeedleSet;

/* status.py's hint lists (set_hints): the needles as Latin-1 bytes (each at least 4 long),
 * their groups; the second of the pair; the hints with a code point above 255, which only
 * a text of a wider kind can hold (looked for with PyUnicode_Find); the head and tail
 * sizes; the needle sets scanned. */
typedef struct {
    Needle check[MAX_NEEDLES + 1], fail[MAX_NEEDLES + 1];
    PyObject *pair_second, *wide, *fail_names; /* fail_names: the Latin-1 fail needles' str */
    Py_UCS4 wide_chars[MAX_WIDE_CHARS]; /* the one-character wide hints; none when more */
    int n_wide_chars;
    int set;
    Py_ssize_t head, tail;
    NeedleSet check_set, fail_set, both_set;
} Hints;

/* What adapter/decide.py's loop needs, given once by setup_decide(). */
typedef struct {
    PyObject *candidate_kinds, *alternative_kinds, *invalid_statuses, *kind_error, *status_none, *status_passed,
        *q_status;
    double discard_novelty, promote_novelty;
} Decide;

/* ---------------------------------------------------------------- reading instances' slots */

#define MAX_FIELDS 32 /* the most fields of a class whose slots are read */

/* obj.name for the model's slots classes (Event, Checks) read straight from the slot: the
 * per-event passes read ~10 fields of every event, and PyObject_GetAttr's type lookup and
 * descriptor call cost several times the read. Only for an instance of exactly the class
 * given to setup_slots() and a name among its object slots; anything else (another class,
 * an empty slot, which raises AttributeError) goes through PyObject_GetAttr. */
#define SLOT_TABLE 64 /* a power of two > 2 * MAX_FIELDS: names found by their address */

typedef struct {
    PyTypeObject *type;
    int n;
    PyObject *names[SLOT_TABLE]; /* interned, compared by identity with Names' strings */
    Py_ssize_t off[SLOT_TABLE];
} SlotReader;

/* The model's kinds, statuses and severities, given once by setup(). */
typedef struct {
    PyObject *kind_generation, *kind_repair, *kind_check, *kind_memory, *kind_plan;
    PyObject *status_none, *status_passed;
    PyObject *severity;  /* dict Status -> int */
    PyObject *fallback;  /* exception class: use the Python path */
} Core;

/* The attribute and key names the passes read, interned when the module is made. */
#define NAME_LIST(X)                                                                                        \
    X(observation_text) X(action_text) X(kind) X(refs) X(truncated) X(tool) X(checks) X(status)             \
        X(memory_write) X(plan) X(extra) X(passed) X(failed) X(total) X(compaction) X(step)     \
            X(tokens_in) X(tokens_out) X(tool_calls) X(wall_s) X(ops)
#define NAME_FIELD(n) PyObject *n;
typedef struct {
    NAME_LIST(NAME_FIELD)
} Names;

typedef struct {
    Tokens tokens;
    Hints hints;
    Decide decide;
    Core core;
    Names names;
    SlotReader event_slots, checks_slots;
} ModState;

static struct PyModuleDef module; /* defined at the end */

/* The state of ``m``, the module a function was called on (NULL: a C caller without one,
 * then the module this interpreter imported). */
static inline ModState *state_of(PyObject *m) {
    if (!m && !(m = PyState_FindModule(&module))) return NULL;
    return (ModState *)PyModule_GetState(m);
}

/* set_tokens(table, min_token, edge): features._TOKEN_TABLE, the bytes.translate table
 * that keeps a token character and maps any other to a space, and distinctive_tokens'
 * MIN_TOKEN and _EDGE (features.py is the one definition). The loops here read code
 * points, Python reads UTF-8 bytes: the same only while every byte >= 128 is a token
 * character (a non-ASCII letter's bytes) and no ASCII space is one (bytes.split splits
 * there). False, and feature_pass declines (the Python loop runs), where that does not
 * hold, or an edge character is not an ASCII token character. */
static PyObject *set_tokens(PyObject *self, PyObject *args) {
    PyObject *table, *edge;
    Py_ssize_t min_len;
    if (!PyArg_ParseTuple(args, "SnS", &table, &min_len, &edge)) return NULL;
    if (PyBytes_GET_SIZE(table) != 256) {
        PyErr_SetString(PyExc_TypeError, "set_tokens takes a 256-byte translate table");
        return NULL;
    }
    const unsigned char *t = (const unsigned char *)PyBytes_AS_STRING(table);
    Tokens *tk = &state_of(self)->tokens;
    tk->set = 0;
    for (int c = 0; c < 256; c++) {
        tk->is[c] = t[c] != ' ';
        if (t[c] != c && t[c] != ' ') Py_RETURN_FALSE;
        if (c >= 128 && !tk->is[c]) Py_RETURN_FALSE;
        if (c < 128 && SPACE1[c] && tk->is[c]) Py_RETURN_FALSE;
    }
    memset(tk->edge, 0, sizeof(tk->edge));
    for (Py_ssize_t k = 0; k < PyBytes_GET_SIZE(edge); k++) {
        unsigned char c = (unsigned char)PyBytes_AS_STRING(edge)[k];
        if (c >= 128 || !tk->is[c]) Py_RETURN_FALSE;
        tk->edge[c] = 1;
    }
    if (min_len < 1) Py_RETURN_FALSE;
    tk->min_len = min_len;
    tk->swar = 1;
    for (unsigned c = 0; c < 128; c++)
        if (tk->is[c] != swar_token(c)) tk->swar = 0;
    tk->set = 1;
    Py_RETURN_TRUE;
}

/* ---------------------------------------------------------------- hashing */

#define K1 0x9E3779B97F4A7C15ULL
#define K2 0xBF58476D1CE4E5B9ULL
#define SEED_LINE 0x6C696E6573ULL
#define SEED_WORD 0x776F726473ULL
#define SEED_WIDE 0x77696465ULL
#define SEED_UCS2 0x7563733255ULL
#define SEED_TOKEN 0x746F6B656EULL

static inline uint64_t fmix(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

static inline uint64_t mix(uint64_t h, uint64_t v) {
    h = (h ^ v) * K2;
    return h ^ (h >> 31);
}

static uint64_t hash_bytes(const unsigned char *p, Py_ssize_t n, uint64_t seed) {
    uint64_t h = seed ^ ((uint64_t)n * K1);
    while (n >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        h = mix(h, v);
        p += 8;
        n -= 8;
    }
    if (n > 0) {
        uint64_t v = 0;
        memcpy(&v, p, (size_t)n);
        h = mix(h, v);
    }
    h = fmix(h);
    return h ? h : 1; /* 0 marks an empty slot */
}

/* Growable scratch buffer. */
typedef struct {
    unsigned char *p;
    size_t n, cap;
} Buf;

static int buf_reserve(Buf *b, size_t cap) {
    if (cap <= b->cap) return 0;
    size_t c = b->cap ? b->cap : 256;
    while (c < cap) c *= 2;
    unsigned char *q = realloc(b->p, c);
    if (!q) {
        PyErr_NoMemory();
        return -1;
    }
    b->p = q;
    b->cap = c;
    return 0;
}

/* text[i:b] of a two-byte str copied to q[i - a:] as Latin-1, four chars at a time while all
 * four are below 256: where it stopped (a char-at-a-time loop goes on from there). */
static inline Py_ssize_t ucs2_latin1(const Py_UCS2 *u, Py_ssize_t a, Py_ssize_t i, Py_ssize_t b, unsigned char *q) {
    for (uint64_t x; i + 4 <= b && (memcpy(&x, u + i, 8), !(x & 0xff00ff00ff00ff00ULL)); i += 4)
        for (int k = 0; k < 4; k++) q[i - a + k] = (unsigned char)u[i + k];
    return i;
}

/* hash_span of a two- or four-byte str; ``kind`` is a constant where it is inlined (why: narrow). */
static inline Py_ALWAYS_INLINE int hash_wide_span(const int kind, const void *data, Py_ssize_t a, Py_ssize_t b,
                                                   uint64_t seed, Buf *scratch, uint64_t *out) {
    Py_ssize_t n = b - a, i = a;
    if (buf_reserve(scratch, (size_t)n + 1) < 0) return -1;
    if (kind == PyUnicode_2BYTE_KIND) i = ucs2_latin1((const Py_UCS2 *)data, a, a, b, scratch->p);
    for (Py_UCS4 c; i < b && (c = PyUnicode_READ(kind, data, i)) < 256; i++) scratch->p[i - a] = (unsigned char)c;
    if (i == b) { /* every code point below 256 */
        *out = hash_bytes(scratch->p, n, seed);
        return 0;
    }
    Py_UCS4 maxc = 0; /* an OR of the code points from the first above 255: below 65536 when each is */
    for (; kind == PyUnicode_4BYTE_KIND && i < b; i++) maxc |= PyUnicode_READ(kind, data, i);
    if (kind == PyUnicode_2BYTE_KIND) { /* its own storage, read in place; a seed of its own */
        *out = hash_bytes((const unsigned char *)((const Py_UCS2 *)data + a), n * 2, seed ^ SEED_UCS2);
        return 0;
    }
    if (maxc < 65536) { /* as a two-byte str would hold it */
        if (buf_reserve(scratch, (size_t)n * 2 + 1) < 0) return -1;
        for (Py_ssize_t i = a; i < b; i++) ((Py_UCS2 *)scratch->p)[i - a] = (Py_UCS2)PyUnicode_READ(kind, data, i);
        *out = hash_bytes(scratch->p, n * 2, seed ^ SEED_UCS2);
        return 0;
    }
    if (buf_reserve(scratch, (size_t)n * 4 + 1) < 0) return -1;
    for (Py_ssize_t i = a; i < b; i++) {
        uint32_t c = (uint32_t)PyUnicode_READ(kind, data, i);
        memcpy(scratch->p + 4 * (i - a), &c, 4);
    }
    *out = hash_bytes(scratch->p, n * 4, seed ^ SEED_WIDE);
    return 0;
}

/* Hash of the code points text[a:b], the same whatever the string's storage width: as one
 * byte each when all are below 256, else as two when all are below 65536, else as four. */
static int hash_span(int kind, const void *data, Py_ssize_t a, Py_ssize_t b, uint64_t seed, Buf *scratch,
                     uint64_t *out) {
    if (kind == PyUnicode_1BYTE_KIND) {
        *out = hash_bytes((const unsigned char *)data + a, b - a, seed);
        return 0;
    }
    if (kind == PyUnicode_2BYTE_KIND) return hash_wide_span(PyUnicode_2BYTE_KIND, data, a, b, seed, scratch, out);
    return hash_wide_span(PyUnicode_4BYTE_KIND, data, a, b, seed, scratch, out);
}

/* ---------------------------------------------------------------- a set of 64-bit hashes */

typedef struct {
    uint64_t *slots;
    size_t mask, used;
} HSet;

/* Zeroed memory for a large hash table, on huge pages where the kernel offers them on
 * request (Linux, transparent huge pages in "madvise" mode): its probes land anywhere, and
 * with 4 KB pages nearly each one misses the TLB. Freed with free(). */
#define HUGE_PAGE ((size_t)2 << 20)
static void *table_alloc(size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= HUGE_PAGE) {
        void *p = NULL;
        size_t rounded = (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
        if (posix_memalign(&p, HUGE_PAGE, rounded) == 0) {
            madvise(p, rounded, MADV_HUGEPAGE);
            memset(p, 0, bytes);
            return p;
        }
    }
#endif
    return calloc(1, bytes);
}

static int hset_init(HSet *s, size_t cap) {
    size_t n = 1024;
    while (n < cap * 2) n *= 2;
    s->slots = table_alloc(n * sizeof(uint64_t));
    if (!s->slots) {
        PyErr_NoMemory();
        return -1;
    }
    s->mask = n - 1;
    s->used = 0;
    return 0;
}

static void hset_free(HSet *s) {
    free(s->slots);
    s->slots = NULL;
}

static int hset_grow(HSet *s) {
    size_t n = (s->mask + 1) * 2;
    uint64_t *slots = table_alloc(n * sizeof(uint64_t));
    if (!slots) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i <= s->mask; i++) {
        uint64_t h = s->slots[i];
        if (!h) continue;
        size_t j = (size_t)h & (n - 1);
        while (slots[j]) j = (j + 1) & (n - 1);
        slots[j] = h;
    }
    free(s->slots);
    s->slots = slots;
    s->mask = n - 1;
    return 0;
}

/* 1 when added, 0 when already present, -1 on error. h != 0. */
static int hset_add(HSet *s, uint64_t h) {
    size_t j = (size_t)h & s->mask;
    while (s->slots[j]) {
        if (s->slots[j] == h) return 0;
        j = (j + 1) & s->mask;
    }
    s->slots[j] = h;
    s->used++;
    if (s->used * 2 > s->mask + 1 && hset_grow(s) < 0) return -1;
    return 1;
}

/* ---------------------------------------------------------------- shingles */

typedef struct {
    uint64_t *v;
    size_t n, cap;
} U64s;

#define SH_AHEAD 16

static int u64_extend(U64s *a, const uint64_t *x, size_t k) {
    if (a->n + k > a->cap) {
        size_t c = a->cap ? a->cap : 64;
        while (c < a->n + k) c *= 2;
        uint64_t *q = realloc(a->v, c * sizeof(uint64_t));
        if (!q) {
            PyErr_NoMemory();
            return -1;
        }
        a->v = q;
        a->cap = c;
    }
    memcpy(a->v + a->n, x, k * sizeof(uint64_t));
    a->n += k;
    return 0;
}

static int u64_push(U64s *a, uint64_t x) {
    if (a->n == a->cap) {
        size_t c = a->cap ? a->cap * 2 : 64;
        uint64_t *q = realloc(a->v, c * sizeof(uint64_t));
        if (!q) {
            PyErr_NoMemory();
            return -1;
        }
        a->v = q;
        a->cap = c;
    }
    a->v[a->n++] = x;
    return 0;
}

typedef struct {
    Py_ssize_t *v;
    size_t n, cap;
} Spans; /* pairs (start, end) */

static int spans_push(Spans *a, Py_ssize_t s, Py_ssize_t e) {
    if (a->n + 2 > a->cap) {
        size_t c = a->cap ? a->cap * 2 : 128;
        Py_ssize_t *q = realloc(a->v, c * sizeof(Py_ssize_t));
        if (!q) {
            PyErr_NoMemory();
            return -1;
        }
        a->v = q;
        a->cap = c;
    }
    a->v[a->n++] = s;
    a->v[a->n++] = e;
    return 0;
}

typedef struct {
    U64s hashes;
    Spans words;
    Buf scratch;
} ShingleWork;

static void shingle_work_free(ShingleWork *w) {
    free(w->hashes.v);
    free(w->words.v);
    free(w->scratch.p);
}

/* The hashes of the normalized non-empty lines of a two- or four-byte str into w->hashes,
 * and how many (-1 on error); ``kind`` is a constant where it is inlined (why: narrow). */
static inline Py_ALWAYS_INLINE Py_ssize_t wide_lines(const int kind, const void *data, Py_ssize_t len,
                                                     ShingleWork *w) {
    Py_ssize_t nlines = 0, start = 0;
    while (start <= len) {
        Py_ssize_t end = start;
        while (end < len) {
            /* two-byte: 4 at a time while each is from 0x1f to 0x7f (every line break is
             * not: \n and its kin below, U+0085, U+2028 and U+2029 above) */
            for (uint64_t x; kind == PyUnicode_2BYTE_KIND && end + 4 <= len; end += 4) {
                memcpy(&x, (const Py_UCS2 *)data + end, 8);
                if ((((x - 0x001f001f001f001fULL) | x) & 0x8000800080008000ULL) | (x & 0xff80ff80ff80ff80ULL)) break;
            }
            if (end >= len || is_break(PyUnicode_READ(kind, data, end))) break;
            end++;
        }
        Py_ssize_t next = end + 1;
        if (end < len && PyUnicode_READ(kind, data, end) == '\r' && end + 1 < len &&
            PyUnicode_READ(kind, data, end + 1) == '\n')
            next = end + 2;
        Py_ssize_t a = start, b = end;
        while (a < b && is_space(PyUnicode_READ(kind, data, a))) a++;
        while (b > a && is_space(PyUnicode_READ(kind, data, b - 1))) b--;
        if (a < b) {
            uint64_t h;
            if (hash_wide_span(kind, data, a, b, SEED_LINE, &w->scratch, &h) < 0 || u64_push(&w->hashes, h) < 0)
                return -1;
            nlines++;
        }
        if (end >= len) break;
        start = next;
    }
    return nlines;
}

/* The (start, end) of each whitespace-separated word of a str into ``out``; ``kind`` is a
 * constant where it is inlined (why: narrow). */
static inline Py_ALWAYS_INLINE int word_spans(const int kind, const void *data, Py_ssize_t len, Spans *out) {
    for (Py_ssize_t i = 0; i < len;) {
        while (i < len && is_space(PyUnicode_READ(kind, data, i))) i++;
        if (i >= len) break;
        Py_ssize_t s = i;
        while (i < len && !is_space(PyUnicode_READ(kind, data, i))) i++;
        if (spans_push(out, s, i) < 0) return -1;
    }
    return 0;
}

/* features.shingles(text): the hashes of its normalized non-empty lines when it has at
 * least 3, else of its word 3-grams (or of the tuple of its 1-2 words), de-duplicated into
 * w->hashes. */
static int shingles(PyObject *text, ShingleWork *w) {
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t len = PyUnicode_GET_LENGTH(text);
    w->hashes.n = 0;
    Py_ssize_t nlines = 0, start = 0;
    if (kind == PyUnicode_1BYTE_KIND) {
        const unsigned char *d = (const unsigned char *)data;
        while (start <= len) {
            Py_ssize_t end = start;
            /* 8 chars at a time while none is below 0x1f (every line break of a 1-byte
             * string is, but U+0085, which is >= 0x80) */
            while (end + 8 <= len) {
                uint64_t x;
                memcpy(&x, d + end, 8);
                if (((x - 0x1f1f1f1f1f1f1f1fULL) | x) & 0x8080808080808080ULL) break;
                end += 8;
            }
            while (end < len && !BREAK1[d[end]]) end++;
            Py_ssize_t a = start, b = end;
            while (a < b && SPACE1[d[a]]) a++;
            while (b > a && SPACE1[d[b - 1]]) b--;
            if (a < b) {
                if (u64_push(&w->hashes, hash_bytes(d + a, b - a, SEED_LINE)) < 0) return -1;
                nlines++;
            }
            if (end >= len) break;
            start = end + 1 + (d[end] == '\r' && end + 1 < len && d[end + 1] == '\n');
        }
    } else if ((nlines = kind == PyUnicode_2BYTE_KIND ? wide_lines(PyUnicode_2BYTE_KIND, data, len, w)
                                                       : wide_lines(PyUnicode_4BYTE_KIND, data, len, w)) < 0) {
        return -1;
    }
    if (nlines < 3) {
        w->hashes.n = 0;
        w->words.n = 0;
        if ((kind == PyUnicode_1BYTE_KIND   ? word_spans(PyUnicode_1BYTE_KIND, data, len, &w->words)
             : kind == PyUnicode_2BYTE_KIND ? word_spans(PyUnicode_2BYTE_KIND, data, len, &w->words)
                                            : word_spans(PyUnicode_4BYTE_KIND, data, len, &w->words)) < 0)
            return -1;
        size_t nw = w->words.n / 2;
        if (nw == 0) return 0;
        /* word hashes in place of spans: reuse a second pass */
        U64s wh = {0, 0, 0};
        for (size_t k = 0; k < nw; k++) {
            uint64_t h;
            if (hash_span(kind, data, w->words.v[2 * k], w->words.v[2 * k + 1], SEED_WORD, &w->scratch,
                          &h) < 0 ||
                u64_push(&wh, h) < 0) {
                free(wh.v);
                return -1;
            }
        }
        if (nw < 3) {
            uint64_t h = SEED_WORD + nw;
            for (size_t k = 0; k < nw; k++) h = mix(h, wh.v[k]);
            h = fmix(h);
            if (u64_push(&w->hashes, h ? h : 1) < 0) {
                free(wh.v);
                return -1;
            }
        } else {
            for (size_t k = 0; k + 2 < nw; k++) {
                uint64_t h = mix(mix(mix(SEED_WORD + 3, wh.v[k]), wh.v[k + 1]), wh.v[k + 2]);
                h = fmix(h);
                if (u64_push(&w->hashes, h ? h : 1) < 0) {
                    free(wh.v);
                    return -1;
                }
            }
        }
        free(wh.v);
    }
    if (w->hashes.n > 1 && w->hashes.n <= 32) { /* most observations have a few lines */
        uint64_t *v = w->hashes.v;
        for (size_t j = 1; j < w->hashes.n; j++) {
            uint64_t x = v[j];
            size_t k = j;
            while (k > 0 && v[k - 1] > x) {
                v[k] = v[k - 1];
                k--;
            }
            v[k] = x;
        }
        size_t k = 1;
        for (size_t j = 1; j < w->hashes.n; j++)
            if (v[j] != v[k - 1]) v[k++] = v[j];
        w->hashes.n = k;
    } else if (w->hashes.n > 32) { /* the first of each, kept in a table: no sort (the order
                                     * does not matter to novelty), qsort's compares took
                                     * 1.2% of a tau-bench file's score */
        size_t m = 64, k = 0;
        while (m < 2 * w->hashes.n) m *= 2;
        if (buf_reserve(&w->scratch, m * sizeof(uint64_t)) < 0) return -1;
        uint64_t *t = (uint64_t *)w->scratch.p, *v = w->hashes.v;
        memset(t, 0, m * sizeof(uint64_t));
        int zero = 0; /* 0 marks an empty slot: a hash of 0 is kept aside */
        for (size_t j = 0; j < w->hashes.n; j++) {
            uint64_t x = v[j];
            size_t i = (size_t)x & (m - 1);
            if (!x) {
                if (!zero) v[k++] = 0;
                zero = 1;
                continue;
            }
            while (t[i] && t[i] != x) i = (i + 1) & (m - 1);
            if (!t[i]) v[k++] = t[i] = x;
        }
        w->hashes.n = k;
    }
    return 0;
}

/* ---------------------------------------------------------------- cited tokens (z) */

typedef struct {
    uint64_t hash;
    PyObject *key; /* bytes, owned */
    int64_t *citers; /* events whose action cites the token, ascending */
    size_t n, cap;
    Py_ssize_t mark; /* the last action text that gave it, 1 + its event (action_tokens) */
} Cited;

typedef struct {
    Cited *items;
    size_t n, cap;
    Py_ssize_t *slots; /* index + 1, 0 = empty */
    size_t mask;
    Py_ssize_t min_len, max_len;
} CitedTable;

static void cited_free(CitedTable *t) {
    for (size_t i = 0; i < t->n; i++) {
        Py_XDECREF(t->items[i].key);
        free(t->items[i].citers);
    }
    free(t->items);
    free(t->slots);
    memset(t, 0, sizeof(*t));
}

static Py_ssize_t cited_find(CitedTable *t, uint64_t h, const unsigned char *p, Py_ssize_t n) {
    if (!t->slots) return -1;
    size_t j = (size_t)h & t->mask;
    while (t->slots[j]) {
        Cited *c = &t->items[t->slots[j] - 1];
        if (c->hash == h && PyBytes_GET_SIZE(c->key) == n && memcmp(PyBytes_AS_STRING(c->key), p, (size_t)n) == 0)
            return t->slots[j] - 1;
        j = (j + 1) & t->mask;
    }
    return -1;
}

static int cited_rehash(CitedTable *t, size_t nslots) {
    Py_ssize_t *slots = calloc(nslots, sizeof(Py_ssize_t));
    if (!slots) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < t->n; i++) {
        size_t j = (size_t)t->items[i].hash & (nslots - 1);
        while (slots[j]) j = (j + 1) & (nslots - 1);
        slots[j] = (Py_ssize_t)i + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->mask = nslots - 1;
    return 0;
}

/* The index of token ``p[:n]`` (UTF-8), added when new; -1 on error. */
static Py_ssize_t cited_intern(CitedTable *t, const unsigned char *p, Py_ssize_t n) {
    uint64_t h = hash_bytes(p, n, SEED_TOKEN);
    Py_ssize_t found = cited_find(t, h, p, n);
    if (found >= 0) return found;
    PyObject *key = PyBytes_FromStringAndSize((const char *)p, n);
    if (!key) return -1;
    if (t->n == t->cap) {
        size_t c = t->cap ? t->cap * 2 : 64;
        Cited *q = realloc(t->items, c * sizeof(Cited));
        if (!q) {
            Py_DECREF(key);
            PyErr_NoMemory();
            return -1;
        }
        t->items = q;
        t->cap = c;
    }
    Cited *c = &t->items[t->n++];
    c->hash = h;
    c->key = key; /* owned */
    c->citers = NULL;
    c->n = c->cap = 0;
    c->mark = 0;
    if (t->n == 1 || n < t->min_len) t->min_len = n;
    if (n > t->max_len) t->max_len = n;
    if (!t->slots || t->n * 2 > t->mask + 1) {
        size_t nslots = t->slots ? (t->mask + 1) * 2 : 256;
        if (cited_rehash(t, nslots) < 0) return -1;
    } else {
        size_t j = (size_t)h & t->mask;
        while (t->slots[j]) j = (j + 1) & t->mask;
        t->slots[j] = (Py_ssize_t)t->n;
    }
    return (Py_ssize_t)t->n - 1;
}

static int cited_add(Cited *c, int64_t t) {
    if (c->n && c->citers[c->n - 1] == t) return 0;
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 4;
        int64_t *q = realloc(c->citers, cap * sizeof(int64_t));
        if (!q) {
            PyErr_NoMemory();
            return -1;
        }
        c->citers = q;
        c->cap = cap;
    }
    c->citers[c->n++] = t;
    return 0;
}

static inline Py_ssize_t utf8_len(Py_UCS4 c) { return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4; }

static inline unsigned char *utf8_put(unsigned char *p, Py_UCS4 c) {
    /* surrogates are written as 3 bytes, as str.encode("utf-8", "surrogatepass") does */
    if (c < 0x80) {
        *p++ = (unsigned char)c;
    } else if (c < 0x800) {
        *p++ = (unsigned char)(0xC0 | (c >> 6));
        *p++ = (unsigned char)(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        *p++ = (unsigned char)(0xE0 | (c >> 12));
        *p++ = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
        *p++ = (unsigned char)(0x80 | (c & 0x3F));
    } else {
        *p++ = (unsigned char)(0xF0 | (c >> 18));
        *p++ = (unsigned char)(0x80 | ((c >> 12) & 0x3F));
        *p++ = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
        *p++ = (unsigned char)(0x80 | (c & 0x3F));
    }
    return p;
}

/* One token (UTF-8 bytes) of observation t: when a later action cites it, first_ref[t]
 * becomes the earliest such action (bisect_right over the citers, as features.py does). */
static int cite_token(CitedTable *table, const unsigned char *p, Py_ssize_t nbytes, int64_t t,
                      int64_t *first_ref) {
    uint64_t h = hash_bytes(p, nbytes, SEED_TOKEN);
    Py_ssize_t idx = cited_find(table, h, p, nbytes);
    if (idx < 0) return 0;
    Cited *c = &table->items[idx];
    size_t lo = 0, hi = c->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c->citers[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < c->n && (first_ref[t] < 0 || c->citers[lo] < first_ref[t])) first_ref[t] = c->citers[lo];
    return 0;
}

/* For 8 ASCII chars, a bit per char (bit k: char k) set when it is a token char:
 * [-./0-9] (0x2d-0x39), [A-Z], _ and [a-z] (used only while features._TOKEN_TABLE's ASCII
 * token characters are exactly these: Tokens.swar). For a byte b < 0x80, b >= lo exactly when
 * b + (0x80 - lo) has its top bit set, and b <= hi when b + (0x7f - hi) has it clear;
 * no sum carries into the next byte. */
#define BYTES(v) (0x0101010101010101ULL * (uint64_t)(v))
static inline uint64_t in_range8(uint64_t x, unsigned lo, unsigned hi) {
    return (x + BYTES(0x80 - lo)) & ~(x + BYTES(0x7f - hi));
}

static inline uint64_t token_bits8(const unsigned char *p) {
    uint64_t x;
    memcpy(&x, p, 8);
    uint64_t t = in_range8(x, 0x2d, 0x39) | in_range8(x, 0x41, 0x5a) | in_range8(x, 0x5f, 0x5f) |
                 in_range8(x, 0x61, 0x7a);
    uint64_t y = (t >> 7) & BYTES(1); /* one bit per byte, at the byte's lowest bit */
    return (y * 0x0102040810204080ULL) >> 56;
}

/* The UTF-8 of text[a:b] (a str that is not ASCII) into ``q`` (room for 4 bytes a char),
 * its length returned; ``kind`` is a constant where it is inlined. A two-byte str is read
 * four chars at a time while they are ASCII (most of a Claude Code file read is: a wide
 * arrow on each line makes it two-byte). */
static inline Py_ALWAYS_INLINE Py_ssize_t utf8_of(const int kind, const void *data, Py_ssize_t a, Py_ssize_t b,
                                                  unsigned char *q) {
    unsigned char *q0 = q;
    for (Py_ssize_t i = a; i < b;) {
        if (kind == PyUnicode_2BYTE_KIND) {
            const Py_UCS2 *u = (const Py_UCS2 *)data;
            for (uint64_t x; i + 4 <= b; i += 4, q += 4) {
                memcpy(&x, u + i, 8);
                if (x & 0xff80ff80ff80ff80ULL) break;
                q[0] = (unsigned char)u[i], q[1] = (unsigned char)u[i + 1];
                q[2] = (unsigned char)u[i + 2], q[3] = (unsigned char)u[i + 3];
            }
            if (i >= b) break;
        }
        q = utf8_put(q, PyUnicode_READ(kind, data, i++));
    }
    return q - q0;
}

/* A bit per byte of the UTF-8 ``d[:n]`` (bit k of word w: byte 64 w + k), set when the byte
 * is one of a token character's (is_token: a character above 255 always is); ``ascii``:
 * every byte is below 128. */
static void token_bits(const Tokens *tk, const unsigned char *d, Py_ssize_t n, int ascii, uint64_t *bits) {
    unsigned cur = 0; /* the token bit of the character whose bytes are being read */
    for (Py_ssize_t w = 0, nw = (n + 63) / 64; w < nw; w++) {
        uint64_t m = 0, x;
        Py_ssize_t base = w * 64, len = n - base < 64 ? n - base : 64, k = 0;
        for (; ascii && tk->swar && k + 8 <= len; k += 8) m |= token_bits8(d + base + k) << k;
        while (k < len) {
            if (tk->swar && k + 8 <= len && (memcpy(&x, d + base + k, 8), !(x & BYTES(0x80)))) {
                m |= token_bits8(d + base + k) << k; /* 8 ASCII chars */
                k += 8;
                continue;
            }
            unsigned b = d[base + k];
            if (b < 0x80)
                cur = tk->is[b];
            else if (b >= 0xC0) /* a lead byte; 0xC2 and 0xC3 lead the chars 128 to 255 */
                cur = b >= 0xC4 || tk->is[((b & 0x1F) << 6) | (d[base + k + 1] & 0x3F)];
            m |= (uint64_t)cur << k++; /* (a continuation byte: its character's bit) */
        }
        bits[w] = m;
    }
}

#define BIT(bits, i) (((bits)[(i) >> 6] >> ((i) & 63)) & 1)

/* Every run of token bytes in the UTF-8 ``d[:n]`` (``bits``: token_bits) of min_len to
 * max_len bytes, cited (cite_token). With min_len >= 8 (features.MIN_TOKEN), a word whose
 * 8-wide windows are never all set holds no start of a run that could be cited and is
 * skipped whole. */
static int cite_runs(CitedTable *table, const unsigned char *d, Py_ssize_t n, const uint64_t *bits, int64_t t,
                     int64_t *first_ref) {
    Py_ssize_t resume = 0, nw = (n + 63) / 64; /* runs already handled end before resume */
    for (Py_ssize_t w = 0; w < nw; w++) {
        uint64_t m = bits[w], next = w + 1 < nw ? bits[w + 1] : 0;
        /* bit k of r3: bytes base+k .. base+k+7 are all token bytes */
        uint64_t r1 = m & ((m >> 1) | (next << 63));
        uint64_t n1 = next & (next >> 1);
        uint64_t r2 = r1 & ((r1 >> 2) | (n1 << 62));
        uint64_t n2 = n1 & (n1 >> 2);
        uint64_t r3 = table->min_len >= 8 ? r2 & ((r2 >> 4) | (n2 << 60)) : m;
        while (r3) {
            Py_ssize_t pos = w * 64 + __builtin_ctzll(r3);
            r3 &= r3 - 1;
            if (pos < resume) continue;
            Py_ssize_t s = pos, e = pos;
            while (s > 0 && BIT(bits, s - 1)) s--;
            for (uint64_t x; e < n; e = (e | 63) + 1) /* to the next clear bit, a word at a time */
                if ((x = ~bits[e >> 6] >> (e & 63))) {
                    e += __builtin_ctzll(x);
                    break;
                }
            e = resume = e < n ? e : n;
            if (e - s < table->min_len || e - s > table->max_len) continue;
            if (cite_token(table, d + s, e - s, t, first_ref) < 0) return -1;
        }
    }
    return 0;
}

/* cite_runs of the UTF-8 ``d[:n]`` (``ascii``: every byte is below 128) */
static int cite_bytes(const Tokens *tk, CitedTable *table, const unsigned char *d, Py_ssize_t n, int ascii, int64_t t,
                      int64_t *first_ref) {
    Py_ssize_t nw = (n + 63) / 64;
    uint64_t stackbits[256], *bits = nw <= 256 ? stackbits : malloc((size_t)nw * 8);
    if (!bits) {
        PyErr_NoMemory();
        return -1;
    }
    token_bits(tk, d, n, ascii, bits);
    int rc = cite_runs(table, d, n, bits, t, first_ref);
    if (bits != stackbits) free(bits);
    return rc;
}

/* A text that is not ASCII is encoded this many chars at a time, at most (and up to the
 * end of a token run that crosses the mark): its UTF-8 copy stays a few KB however long. */
#define CITE_PIECE 4096

/* z, pass 2 for one observation: every token of the text (features.word_list) that a later
 * action cites moves first_ref[t] to the earliest such later event. The text is read as its
 * UTF-8 bytes, a bit per byte (token_bits; an ASCII str is its own UTF-8, another is
 * encoded a piece at a time, each ending after a char that is no token's, so no run is
 * cut): reading a two-byte str a char at a time, as the tokens' UTF-8 lengths were summed,
 * took 1.8x as long as this (a generated Claude Code folder, docs/speed.md). */
static int cite_pass(const Tokens *tk, CitedTable *table, PyObject *text, int64_t t, int64_t *first_ref,
                     Buf *scratch) {
    if (table->n == 0) return 0;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t len = PyUnicode_GET_LENGTH(text);
    if (PyUnicode_IS_ASCII(text)) return cite_bytes(tk, table, data, len, 1, t, first_ref);
    for (Py_ssize_t a = 0, b; a < len; a = b) {
        b = len - a > CITE_PIECE ? a + CITE_PIECE : len;
        while (b < len && is_token(tk, PyUnicode_READ(kind, data, b - 1))) b++;
        if (buf_reserve(scratch, (size_t)(b - a) * 4) < 0) return -1;
        Py_ssize_t n = kind == PyUnicode_1BYTE_KIND   ? utf8_of(PyUnicode_1BYTE_KIND, data, a, b, scratch->p)
                       : kind == PyUnicode_2BYTE_KIND ? utf8_of(PyUnicode_2BYTE_KIND, data, a, b, scratch->p)
                                                      : utf8_of(PyUnicode_4BYTE_KIND, data, a, b, scratch->p);
        if (cite_bytes(tk, table, scratch->p, n, 0, t, first_ref) < 0) return -1;
    }
    return 0;
}

/* Token ``p[:n]`` of the action text of event ``mark - 1``: its index appended to ``out``
 * once (a set, as distinctive_tokens returns). */
static int action_cites(CitedTable *table, const unsigned char *p, Py_ssize_t n, Py_ssize_t mark, U64s *out) {
    Py_ssize_t at = cited_intern(table, p, n);
    if (at < 0) return -1;
    if (table->items[at].mark == mark) return 0;
    table->items[at].mark = mark;
    return u64_push(out, (uint64_t)at);
}

/* One run of token characters of an action text (UTF-8 ``p[:n]``, n >= min_len): the
 * distinctive tokens it gives (features.distinctive_tokens: not a plain lower-case word,
 * then the same without its edge characters), their indices appended to ``out``. */
static int action_token(const Tokens *tk, CitedTable *table, const unsigned char *p, Py_ssize_t n, Py_ssize_t mark,
                        U64s *out) {
    Py_ssize_t k = 0;
    while (k < n && p[k] >= 'a' && p[k] <= 'z') k++;
    if (k == n) return 0;
    if (action_cites(table, p, n, mark, out) < 0) return -1;
    Py_ssize_t lo = 0, hi = n;
    while (lo < hi && tk->edge[p[lo]]) lo++;
    while (hi > lo && tk->edge[p[hi - 1]]) hi--;
    if ((lo == 0 && hi == n) || hi - lo < tk->min_len) return 0;
    return action_cites(table, p + lo, hi - lo, mark, out);
}

/* z, pass 1 for one action text: the indices in ``table`` of its distinctive tokens
 * (features.distinctive_tokens, whose rule this is: tests/compiled compares the two),
 * each added to the table when new, appended to ``out`` once. Replaces a
 * call of features.distinctive_tokens per distinct text, whose Python loop over every word was
 * 0.15 s of scoring ../shared's real runs (docs/speed.md). */
static int action_tokens(const Tokens *tk, CitedTable *table, PyObject *text, Py_ssize_t mark, U64s *out,
                         Buf *scratch) {
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t len = PyUnicode_GET_LENGTH(text), i = 0;
    /* most texts: read as bytes (the loop below reads each char through its kind) */
    if (PyUnicode_IS_ASCII(text)) {
        const unsigned char *d = (const unsigned char *)data;
        while (i < len) {
            while (i < len && !tk->is[d[i]]) i++;
            Py_ssize_t s = i;
            while (i < len && tk->is[d[i]]) i++;
            if (i - s >= tk->min_len && action_token(tk, table, d + s, i - s, mark, out) < 0) return -1;
        }
        return 0;
    }
    while (i < len) {
        while (i < len && !is_token(tk, PyUnicode_READ(kind, data, i))) i++;
        if (i >= len) break;
        Py_ssize_t s = i, nbytes = 0;
        for (Py_UCS4 c; i < len && is_token(tk, c = PyUnicode_READ(kind, data, i)); i++) nbytes += utf8_len(c);
        if (nbytes < tk->min_len) continue;
        if (buf_reserve(scratch, (size_t)nbytes) < 0) return -1;
        unsigned char *q = scratch->p;
        for (Py_ssize_t k = s; k < i; k++) q = utf8_put(q, PyUnicode_READ(kind, data, k));
        if (action_token(tk, table, scratch->p, nbytes, mark, out) < 0) return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- module state */

static inline size_t slot_hash(PyObject *name) { return ((uintptr_t)name >> 4) & (SLOT_TABLE - 1); }

static inline PyObject *slot_get(const SlotReader *r, PyObject *obj, PyObject *name) {
    if (Py_IS_TYPE(obj, r->type)) {
        for (size_t j = slot_hash(name); r->names[j]; j = (j + 1) & (SLOT_TABLE - 1))
            if (r->names[j] == name) {
                PyObject *v = *(PyObject **)((char *)obj + r->off[j]);
                if (v) return Py_NewRef(v);
                break;
            }
    }
    return PyObject_GetAttr(obj, name);
}

/* obj.name of an Event or a Checks, with ``st`` the module state in scope */
#define EV_GET(obj, name) slot_get(&st->event_slots, (obj), st->names.name)
#define CH_GET(obj, name) slot_get(&st->checks_slots, (obj), st->names.name)

/* The object slots (member descriptors) of ``type``, named by the strings of ``fields``. */
static int slot_reader_setup(SlotReader *r, PyObject *type, PyObject *fields) {
    if (!PyType_Check(type) || !PyTuple_Check(fields)) {
        PyErr_SetString(PyExc_TypeError, "a slots class and its field names");
        return -1;
    }
    SlotReader got = {0};
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(fields) && got.n < MAX_FIELDS; i++) {
        PyObject *f = PyTuple_GET_ITEM(fields, i);
        if (!PyUnicode_CheckExact(f)) continue;
        PyObject *d = PyObject_GetAttr(type, f);
        if (!d) {
            PyErr_Clear();
            continue;
        }
        if (Py_IS_TYPE(d, &PyMemberDescr_Type) && ((PyMemberDescrObject *)d)->d_common.d_type == (PyTypeObject *)type) {
            PyMemberDef *def = ((PyMemberDescrObject *)d)->d_member;
            if (def->type == T_OBJECT_EX) {
                Py_INCREF(f);
                PyUnicode_InternInPlace(&f);
                size_t j = slot_hash(f);
                while (got.names[j] && got.names[j] != f) j = (j + 1) & (SLOT_TABLE - 1);
                if (got.names[j]) {
                    Py_DECREF(f); /* a name listed twice */
                } else {
                    got.names[j] = f; /* the reference is kept */
                    got.off[j] = def->offset;
                    got.n++;
                }
            }
        }
        Py_DECREF(d);
    }
    for (int i = 0; i < SLOT_TABLE; i++) Py_XDECREF(r->names[i]);
    Py_XDECREF(r->type);
    got.type = (PyTypeObject *)Py_NewRef(type);
    *r = got;
    return 0;
}

/* setup_slots(Event, event_fields, Checks, checks_fields) */
static PyObject *setup_slots(PyObject *self, PyObject *args) {
    PyObject *ev_type, *ev_fields, *ch_type, *ch_fields;
    if (!PyArg_ParseTuple(args, "OOOO", &ev_type, &ev_fields, &ch_type, &ch_fields)) return NULL;
    ModState *st = state_of(self);
    if (slot_reader_setup(&st->event_slots, ev_type, ev_fields) < 0 ||
        slot_reader_setup(&st->checks_slots, ch_type, ch_fields) < 0)
        return NULL;
    return Py_BuildValue("(ii)", st->event_slots.n, st->checks_slots.n);
}

static PyObject *setup(PyObject *self, PyObject *args) {
    Core n;
    if (!PyArg_ParseTuple(args, "OOOOOOOOO", &n.kind_generation, &n.kind_repair, &n.kind_check,
                          &n.kind_memory, &n.kind_plan, &n.status_none, &n.status_passed,
                          &n.severity, &n.fallback))
        return NULL;
    if (!PyDict_Check(n.severity)) {
        PyErr_SetString(PyExc_TypeError, "severity must be a dict");
        return NULL;
    }
    PyObject **dst = (PyObject **)&state_of(self)->core, **src = (PyObject **)&n;
    for (size_t i = 0; i < sizeof(Core) / sizeof(PyObject *); i++) {
        Py_INCREF(src[i]);
        Py_XSETREF(dst[i], src[i]);
    }
    Py_RETURN_NONE;
}

/* Raise the fallback exception: the Python path will handle this run. */
static PyObject *fallback(const ModState *st, const char *why) {
    if (st->core.fallback) PyErr_SetString(st->core.fallback, why);
    return NULL;
}

/* An int attribute value as int64 (None -> dflt); -2 on a value the fast path does not take. */
static int as_i64(PyObject *v, int64_t dflt, int64_t *out) {
    if (v == Py_None) {
        *out = dflt;
        return 0;
    }
    if (!PyLong_CheckExact(v)) return -2;
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow || (x == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return -2;
    }
    if (x > (1LL << 53) || x < -(1LL << 53)) return -2; /* int / int stays exact in double */
    *out = x;
    return 0;
}

static PyObject *bytearray_of(const void *p, size_t n) {
    return PyByteArray_FromStringAndSize((const char *)p, (Py_ssize_t)n);
}

/* ---------------------------------------------------------------- event_columns */

/* float(v) of an exact int within 2**53 or a float: 0, else -1 (the pass declines) */
static int num_of(PyObject *v, double *out) {
    int64_t x;
    if (PyFloat_CheckExact(v)) *out = PyFloat_AS_DOUBLE(v);
    else if (v == Py_None || as_i64(v, 0, &x) < 0) return -1;
    else *out = (double)x;
    return 0;
}

/* The index of ``v`` in the tuple ``members`` (by identity), -1 when it is not there */
static int member_index(PyObject *members, PyObject *v) {
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(members); i++)
        if (PyTuple_GET_ITEM(members, i) == v) return (int)i;
    return -1;
}

/* scoring/event_columns.py's columns of a list of Events, in one pass over their slots:
 * kind and status as int8 indices into the tuples ``kinds`` and ``statuses``, then tokens
 * (tokens_in + tokens_out), tool_calls, wall_s and ops as float64. None when an event is
 * not an Event (its getattr could run code) or holds a value this does not take (not an
 * exact int within 2**53 or a float; a kind or status not listed): Python reads them. */
static PyObject *event_columns(PyObject *self, PyObject *args) {
    PyObject *events, *kinds, *statuses, *v[7] = {NULL}, *out;
    if (!PyArg_ParseTuple(args, "O!O!O!", &PyList_Type, &events, &PyTuple_Type, &kinds, &PyTuple_Type, &statuses) ||
        !(out = PyTuple_New(6)))
        return NULL;
    const ModState *st = state_of(self);
    Py_ssize_t T = PyList_GET_SIZE(events);
    char *col[6];
    for (int i = 0; i < 6; i++) {
        PyObject *b = PyByteArray_FromStringAndSize(NULL, i < 2 ? T : T * 8);
        if (!b) goto error;
        PyTuple_SET_ITEM(out, i, b);
        col[i] = PyByteArray_AS_STRING(b);
    }
    PyObject *names[7] = {st->names.kind,       st->names.status, st->names.tokens_in, st->names.tokens_out,
                          st->names.tool_calls, st->names.wall_s, st->names.ops};
    for (Py_ssize_t t = 0; t < T; t++) {
        PyObject *ev = PyList_GET_ITEM(events, t);
        if (!Py_IS_TYPE(ev, st->event_slots.type)) goto decline;
        for (int i = 0; i < 7; i++)
            if (!(v[i] = slot_get(&st->event_slots, ev, names[i]))) goto error;
        int k = member_index(kinds, v[0]), s = member_index(statuses, v[1]);
        int64_t tin, tout;
        double din, dout, *num = (double *)col[2] + t;
        if (k < 0 || s < 0) goto decline;
        col[0][t] = (char)k;
        col[1][t] = (char)s;
        if (v[2] != Py_None && v[3] != Py_None && !as_i64(v[2], 0, &tin) && !as_i64(v[3], 0, &tout))
            *num = (double)(tin + tout); /* Python adds the ints exactly, then converts */
        else if (num_of(v[2], &din) == 0 && num_of(v[3], &dout) == 0)
            *num = din + dout;
        else
            goto decline;
        for (int i = 1; i < 4; i++)
            if (num_of(v[i + 3], (double *)col[i + 2] + t) < 0) goto decline;
        for (int i = 0; i < 7; i++) Py_CLEAR(v[i]);
    }
    return out;
decline:
    Py_SETREF(out, Py_NewRef(Py_None));
    for (int i = 0; i < 7; i++) Py_XDECREF(v[i]);
    return out;
error:
    for (int i = 0; i < 7; i++) Py_XDECREF(v[i]);
    Py_DECREF(out);
    return NULL;
}

/* ---------------------------------------------------------------- feature_pass */

typedef struct {
    uint64_t *keys;  /* Python hash of (epoch, tool, action) + 1 (0 = empty) */
    PyObject **obs;  /* its first observation (a reference), compared when the action repeats */
    unsigned char *variety;
    size_t mask, used;
} ActionMap;

static int amap_init(ActionMap *m) {
    size_t n = 1024;
    m->keys = calloc(n, sizeof(uint64_t));
    m->obs = calloc(n, sizeof(PyObject *));
    m->variety = calloc(n, 1);
    if (!m->keys || !m->obs || !m->variety) {
        PyErr_NoMemory();
        return -1;
    }
    m->mask = n - 1;
    m->used = 0;
    return 0;
}

static void amap_free(ActionMap *m) {
    for (size_t i = 0; m->obs && i <= m->mask; i++) Py_XDECREF(m->obs[i]);
    free(m->keys);
    free(m->obs);
    free(m->variety);
}

/* Python hashes are never -1, so h + 1 is never 0 (the empty-slot mark) */
static inline uint64_t amap_key(Py_hash_t h) { return (uint64_t)h + 1; }

/* The slot holding hash h (>= 0), or -(free slot) - 1. */
static Py_ssize_t amap_slot(ActionMap *m, Py_hash_t h) {
    uint64_t key = amap_key(h);
    size_t j = (size_t)fmix(key) & m->mask;
    while (m->keys[j]) {
        if (m->keys[j] == key) return (Py_ssize_t)j;
        j = (j + 1) & m->mask;
    }
    return -(Py_ssize_t)j - 1;
}

static int amap_grow(ActionMap *m) {
    size_t n = (m->mask + 1) * 2;
    uint64_t *keys = calloc(n, sizeof(uint64_t));
    PyObject **obs = calloc(n, sizeof(PyObject *));
    unsigned char *variety = calloc(n, 1);
    if (!keys || !obs || !variety) {
        free(keys);
        free(obs);
        free(variety);
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i <= m->mask; i++) {
        if (!m->keys[i]) continue;
        size_t j = (size_t)fmix(m->keys[i]) & (n - 1);
        while (keys[j]) j = (j + 1) & (n - 1);
        keys[j] = m->keys[i];
        obs[j] = m->obs[i];
        variety[j] = m->variety[i];
    }
    free(m->keys); /* the references move to the new table */
    free(m->obs);
    free(m->variety);
    m->keys = keys;
    m->obs = obs;
    m->variety = variety;
    m->mask = n - 1;
    return 0;
}

/* The part of ``s`` without leading/trailing whitespace (str.strip()), new reference. */
static PyObject *strip(PyObject *s) {
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    Py_ssize_t a = 0, b = PyUnicode_GET_LENGTH(s);
    while (a < b && is_space(PyUnicode_READ(kind, data, a))) a++;
    while (b > a && is_space(PyUnicode_READ(kind, data, b - 1))) b--;
    if (a == 0 && b == PyUnicode_GET_LENGTH(s)) {
        Py_INCREF(s);
        return s;
    }
    return PyUnicode_Substring(s, a, b);
}

static int all_space(PyObject *s) {
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    if (n == 0) return 0;
    for (Py_ssize_t i = 0; i < n; i++)
        if (!is_space(PyUnicode_READ(kind, data, i))) return 0;
    return 1;
}

#define GET(obj, name, dst)                        \
    do {                                           \
        dst = EV_GET((obj), name);                 \
        if (!dst) goto error;                      \
    } while (0)

static PyObject *feature_pass(PyObject *self, PyObject *args) {
    PyObject *events, *target_of, *error_signature;
    if (!PyArg_ParseTuple(args, "O!OO", &PyList_Type, &events, &target_of, &error_signature)) return NULL;
    const ModState *st = state_of(self);
    if (!st->core.fallback) {
        PyErr_SetString(PyExc_RuntimeError, "_speedups.setup() was not called");
        return NULL;
    }
    const Tokens *tk = &st->tokens;
    if (!tk->set) return fallback(st, "features.py has not given its token characters (set_tokens)");
    Py_ssize_t T = PyList_GET_SIZE(events);
    size_t nT = (size_t)(T > 0 ? T : 1);
    double *c = calloc(nT, sizeof(double)), *h = calloc(nT, sizeof(double)), *a = malloc(nT * sizeof(double)),
           *q = malloc(nT * sizeof(double)), *delta = calloc(nT, sizeof(double)), *n = calloc(nT, sizeof(double));
    unsigned char *mem = calloc(nT, 1), *plan = calloc(nT, 1), *has_verdict = calloc(nT, 1),
                  *repeat_action = calloc(nT, 1), *repeat_error = calloc(nT, 1);
    int64_t *first_ref = malloc(nT * sizeof(int64_t)), *sig_ids = malloc(nT * sizeof(int64_t));
    PyObject *compaction = PyList_New(0), *act_cache = PyDict_New(), *error_sigs = PySet_New(NULL),
             *signature_ids = PyDict_New(), *result = NULL;
    HSet seen = {0};
    ActionMap amap = {0};
    CitedTable cited = {0};
    ShingleWork work = {{0}};
    U64s all_sh = {0};                          /* every observation's shingles, in order */
    U64s act_toks = {0};                        /* an action's distinctive tokens' indices */
    size_t *n_sh = calloc(nT, sizeof(size_t)); /* how many of them each event has */
    PyObject *ev = NULL, *obs = NULL, *act = NULL, *kind = NULL, *refs = NULL, *truncated = NULL,
             *tool = NULL, *checks = NULL, *status = NULL, *memw = NULL, *planv = NULL, *extra = NULL;

    if (!c || !h || !a || !q || !delta || !n || !mem || !plan || !has_verdict || !repeat_action ||
        !repeat_error || !first_ref || !sig_ids || !n_sh) {
        PyErr_NoMemory();
        goto error;
    }
    if (!compaction || !act_cache || !error_sigs || !signature_ids) goto error;
    if (amap_init(&amap) < 0) goto error;
    for (Py_ssize_t t = 0; t < T; t++) {
        a[t] = 1.0;
        q[t] = 1.0;
        first_ref[t] = -1;
    }

    int64_t known_checks = 0, epoch = 0;
    double prev_frac = 0.0;
    long prev_sev = 0;
    int have_prev_sev = 0;

    for (Py_ssize_t t = 0; t < T; t++) {
        ev = PyList_GET_ITEM(events, t);
        GET(ev, observation_text, obs);
        GET(ev, action_text, act);
        GET(ev, kind, kind);
        if (!PyUnicode_CheckExact(obs) || !PyUnicode_CheckExact(act)) {
            fallback(st, "event text is not a str");
            goto error;
        }
        /* z, pass 1: refs, and which distinctive tokens each action cites */
        GET(ev, refs, refs);
        if (!PyTuple_CheckExact(refs) && !PyList_CheckExact(refs)) {
            fallback(st, "refs is not a tuple");
            goto error;
        }
        for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(refs); k++) {
            PyObject *rv = PySequence_Fast_GET_ITEM(refs, k);
            int64_t r;
            if (rv == Py_None || as_i64(rv, -1, &r) < 0) {
                fallback(st, "ref is not an int");
                goto error;
            }
            if (0 <= r && r < t && first_ref[r] < 0) first_ref[r] = t;
        }
        Py_CLEAR(refs);
        PyObject *info = PyDict_GetItemWithError(act_cache, act); /* borrowed */
        if (!info) {
            if (PyErr_Occurred()) goto error;
            PyObject *tgt = PyObject_CallOneArg(target_of, act);
            if (!tgt) goto error;
            if (!PyUnicode_CheckExact(tgt)) {
                Py_DECREF(tgt);
                fallback(st, "target must return a str");
                goto error;
            }
            act_toks.n = 0;
            PyObject *idx = NULL; /* the token indices, as the bytes of a uint64_t array */
            if (action_tokens(tk, &cited, act, t + 1, &act_toks, &work.scratch) == 0)
                idx = PyBytes_FromStringAndSize((const char *)act_toks.v,
                                                (Py_ssize_t)(act_toks.n * sizeof(uint64_t)));
            info = idx ? PyTuple_Pack(2, tgt, idx) : NULL;
            Py_XDECREF(idx);
            Py_DECREF(tgt);
            if (!info) goto error;
            int rc = PyDict_SetItem(act_cache, act, info);
            Py_DECREF(info); /* the dict holds it */
            if (rc < 0) goto error;
        }
        PyObject *target = PyTuple_GET_ITEM(info, 0), *idx = PyTuple_GET_ITEM(info, 1);
        for (Py_ssize_t k = 0; k < PyBytes_GET_SIZE(idx); k += (Py_ssize_t)sizeof(uint64_t)) {
            uint64_t at;
            memcpy(&at, PyBytes_AS_STRING(idx) + k, sizeof(at));
            if (cited_add(&cited.items[at], t) < 0) goto error;
        }

        /* n: novelty of the observation's shingles against all earlier observations */
        GET(ev, truncated, truncated);
        if (PyUnicode_GET_LENGTH(obs) > 0) {
            if (shingles(obs, &work) < 0) goto error;
            if (work.hashes.n) { /* inserted after this loop (n below) */
                if (u64_extend(&all_sh, work.hashes.v, work.hashes.n) < 0) goto error;
                n_sh[t] = work.hashes.n;
            }
            int tr = PyObject_IsTrue(truncated);
            if (tr < 0) goto error;
            if (tr || all_space(obs)) q[t] = 0.5;
        } else {
            q[t] = 0.5;
        }
        Py_CLEAR(truncated);

        /* q and repeats (features.py: observing actions compared within an epoch) */
        int64_t action_epoch;
        if (kind == st->core.kind_generation || kind == st->core.kind_repair) {
            epoch++;
            action_epoch = -1;
        } else {
            action_epoch = epoch;
        }
        GET(ev, tool, tool);
        int tool_true = PyObject_IsTrue(tool);
        if (tool_true < 0) goto error;
        if (PyUnicode_GET_LENGTH(act) > 0 || tool_true) {
            PyObject *stripped = strip(act);
            if (!stripped) goto error;
            PyObject *ep = PyLong_FromLongLong(action_epoch);
            if (!ep) {
                Py_DECREF(stripped);
                goto error;
            }
            PyObject *keyt = PyTuple_Pack(3, ep, tool, stripped);
            Py_DECREF(ep);
            Py_DECREF(stripped);
            if (!keyt) goto error;
            Py_hash_t key = PyObject_Hash(keyt);
            Py_DECREF(keyt);
            if (key == -1 && PyErr_Occurred()) goto error;
            Py_ssize_t slot = amap_slot(&amap, key);
            if (slot < 0) {
                size_t j = (size_t)(-slot - 1);
                amap.keys[j] = amap_key(key);
                amap.obs[j] = Py_NewRef(obs);
                amap.variety[j] = 0;
                if (++amap.used * 2 > amap.mask + 1 && amap_grow(&amap) < 0) goto error;
            } else {
                repeat_action[t] = 1;
                if (amap.variety[slot] || PyObject_RichCompareBool(amap.obs[slot], obs, Py_EQ) != 1) {
                    q[t] = 0.5;
                    amap.variety[slot] = 1;
                }
            }
        }

        /* c, h: checker fired and its scope; Δ: increase in passing fraction (+0.5 below) */
        GET(ev, checks, checks);
        double d = 0.0;
        if (checks != Py_None) {
            PyObject *pv = CH_GET(checks, passed), *fv = CH_GET(checks, failed),
                     *tv = CH_GET(checks, total);
            int64_t passed, failed, total;
            int ok = pv && fv && tv;
            int bad = ok && (as_i64(pv, 0, &passed) < 0 || pv == Py_None || as_i64(fv, 0, &failed) < 0 ||
                             fv == Py_None || as_i64(tv, 0, &total) < 0);
            Py_XDECREF(pv);
            Py_XDECREF(fv);
            Py_XDECREF(tv);
            if (!ok) goto error;
            if (bad) {
                fallback(st, "checks counts are not small ints");
                goto error;
            }
            c[t] = 1.0;
            int64_t ran = passed + failed;
            if (ran > (1LL << 53)) { /* (double)ran would round: Python divides the exact ints */
                fallback(st, "checks counts sum past 2**53");
                goto error;
            }
            if (ran > 0) {
                int64_t m = known_checks;
                if (total > m) m = total;
                if (ran > m) m = ran;
                known_checks = m;
                double x = (double)ran / (double)known_checks;
                h[t] = x < 1.0 ? x : 1.0;
                int64_t den = total > ran ? total : ran;
                double frac = (double)passed / (double)den;
                if (frac > prev_frac) d = frac - prev_frac;
                prev_frac = frac;
            } else {
                h[t] = 0.5;
            }
        } else if (kind == st->core.kind_check) {
            c[t] = 1.0;
            h[t] = 0.5;
        }
        Py_CLEAR(checks);
        GET(ev, status, status);
        if (status != st->core.status_none) {
            has_verdict[t] = 1;
            PyObject *sv = PyDict_GetItemWithError(st->core.severity, status);
            if (!sv) {
                if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, status);
                goto error;
            }
            long sev = PyLong_AsLong(sv);
            if (sev == -1 && PyErr_Occurred()) goto error;
            if (have_prev_sev && sev > prev_sev) d += 0.5;
            prev_sev = sev;
            have_prev_sev = 1;
            /* a: repeated-error avoidance */
            if (status != st->core.status_passed) {
                /* error_signature is Python's (its regular expression written once) */
                PyObject *sig = PyObject_CallOneArg(error_signature, ev);
                if (!sig) goto error;
                int seen_sig = PySet_Contains(error_sigs, sig);
                if (seen_sig < 0 || (!seen_sig && PySet_Add(error_sigs, sig) < 0)) {
                    Py_DECREF(sig);
                    goto error;
                }
                Py_DECREF(sig);
                if (seen_sig) {
                    a[t] = 0.0;
                    repeat_error[t] = 1;
                }
            }
        }
        Py_CLEAR(status);
        if (d != 0.0) delta[t] = d < 1.0 ? d : 1.0;

        /* m / p inputs */
        GET(ev, memory_write, memw);
        int mw = PyObject_IsTrue(memw);
        Py_CLEAR(memw);
        if (mw < 0) goto error;
        if (mw || kind == st->core.kind_memory) mem[t] = 1;
        GET(ev, plan, planv);
        int pl = PyObject_IsTrue(planv);
        Py_CLEAR(planv);
        if (pl < 0) goto error;
        if (pl || kind == st->core.kind_plan) plan[t] = 1;
        GET(ev, extra, extra);
        int ex = PyObject_IsTrue(extra);
        if (ex < 0) goto error;
        if (ex) {
            if (!PyDict_CheckExact(extra)) {
                fallback(st, "extra is not a dict");
                goto error;
            }
            PyObject *got = PyDict_GetItemWithError(extra, st->names.compaction);
            if (!got && PyErr_Occurred()) goto error;
            int comp = got ? PyObject_IsTrue(got) : 0;
            if (comp < 0) goto error;
            if (comp) {
                PyObject *tv = PyLong_FromSsize_t(t);
                if (!tv || PyList_Append(compaction, tv) < 0) {
                    Py_XDECREF(tv);
                    goto error;
                }
                Py_DECREF(tv);
            }
        }
        Py_CLEAR(extra);
        /* plan-change signature: (kind, tool, target) */
        PyObject *sk = PyTuple_Pack(3, kind, tool, target);
        if (!sk) goto error;
        PyObject *sid = PyDict_GetItemWithError(signature_ids, sk);
        if (!sid) {
            if (PyErr_Occurred()) {
                Py_DECREF(sk);
                goto error;
            }
            sid = PyLong_FromSsize_t(PyDict_GET_SIZE(signature_ids));
            if (!sid || PyDict_SetItem(signature_ids, sk, sid) < 0) {
                Py_XDECREF(sid);
                Py_DECREF(sk);
                goto error;
            }
            Py_DECREF(sid);
        }
        sig_ids[t] = PyLong_AsLongLong(sid);
        Py_DECREF(sk);
        Py_CLEAR(tool);
        Py_CLEAR(kind);
        Py_CLEAR(obs);
        Py_CLEAR(act);
    }

    /* n: novelty of each observation's shingles against all earlier observations. The
     * shingles are added in event order once all are known: the table is sized for them
     * all (it never grows), and the slot of the probe SH_AHEAD probes on is prefetched, so
     * that the memory latency of these random probes overlaps. */
    if (hset_init(&seen, all_sh.n + 64) < 0) goto error;
    {
        size_t at = 0;
        for (Py_ssize_t t = 0; t < T; t++) {
            size_t k = n_sh[t], fresh = 0;
            for (size_t end = at + k; at < end; at++) {
                if (at + SH_AHEAD < all_sh.n) PREFETCH(&seen.slots[(size_t)all_sh.v[at + SH_AHEAD] & seen.mask]);
                int added = hset_add(&seen, all_sh.v[at]);
                if (added < 0) goto error;
                fresh += (size_t)added;
            }
            if (k) n[t] = (double)fresh / (double)k;
        }
    }

    /* z, pass 2: an observation is referenced when a later action cites one of its words */
    for (Py_ssize_t t = 0; t < T && cited.n; t++) {
        ev = PyList_GET_ITEM(events, t);
        GET(ev, observation_text, obs);
        if (!PyUnicode_CheckExact(obs)) {
            fallback(st, "event text is not a str");
            goto error;
        }
        if (PyUnicode_GET_LENGTH(obs) && cite_pass(tk, &cited, obs, t, first_ref, &work.scratch) < 0) goto error;
        Py_CLEAR(obs);
    }

    {
        size_t T8 = (size_t)T * sizeof(double), T1 = (size_t)T;
        result = Py_BuildValue("(NNNNNNNNNNNNNO)", bytearray_of(c, T8), bytearray_of(h, T8), bytearray_of(a, T8),
                               bytearray_of(q, T8), bytearray_of(delta, T8), bytearray_of(n, T8),
                               bytearray_of(mem, T1), bytearray_of(plan, T1), bytearray_of(has_verdict, T1),
                               bytearray_of(repeat_action, T1), bytearray_of(repeat_error, T1),
                               bytearray_of(first_ref, T8), bytearray_of(sig_ids, T8), compaction);
    }

error:
    Py_XDECREF(obs);
    Py_XDECREF(act);
    Py_XDECREF(kind);
    Py_XDECREF(refs);
    Py_XDECREF(truncated);
    Py_XDECREF(tool);
    Py_XDECREF(checks);
    Py_XDECREF(status);
    Py_XDECREF(memw);
    Py_XDECREF(planv);
    Py_XDECREF(extra);
    Py_XDECREF(compaction);
    Py_XDECREF(act_cache);
    Py_XDECREF(error_sigs);
    Py_XDECREF(signature_ids);
    free(c);
    free(h);
    free(a);
    free(q);
    free(delta);
    free(n);
    free(mem);
    free(plan);
    free(has_verdict);
    free(repeat_action);
    free(repeat_error);
    free(first_ref);
    free(sig_ids);
    hset_free(&seen);
    amap_free(&amap);
    cited_free(&cited);
    shingle_work_free(&work);
    free(all_sh.v);
    free(act_toks.v);
    free(n_sh);
    return result;
}

/* ---------------------------------------------------------------- no_hints */

/* The substrings status.py looks for before any regular expression, given by status.py
 * at import (set_hints: status.py is their one definition). A hit on any of them (for the
 * pair's first: together with its second) sends the text to the Python classifier. Until
 * set_hints is called, no_hints answers False (the classifier runs: slower, never wrong). */
static inline uint32_t load4(const unsigned char *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline unsigned bloom_key(uint32_t v) { return (unsigned)((v * 2654435761u) >> 16); }

static void needles_add(NeedleSet *ns, const Needle *list) {
    for (const Needle *n = list; n->s; n++) {
        uint32_t v = load4((const unsigned char *)n->s);
        unsigned key = bloom_key(v);
        ns->bloom[key >> 6] |= 1ULL << (key & 63);
        ns->list[ns->n] = n;
        ns->head[ns->n] = v;
        ns->len[ns->n] = strlen(n->s);
        ns->next[ns->n] = ns->chain[key & 255];
        ns->chain[key & 255] = (int16_t)(ns->n + 1);
        ns->n++;
    }
}

static void free_needles(Needle *list) {
    for (Needle *n = list; n->s; n++) PyMem_Free((void *)n->s);
    memset(list, 0, sizeof(Needle) * (MAX_NEEDLES + 1));
}

static void init_needles(Hints *h) {
    h->set = 0;
    free_needles(h->check);
    free_needles(h->fail);
    Py_CLEAR(h->pair_second);
    Py_CLEAR(h->wide);
    Py_CLEAR(h->fail_names);
    memset(&h->check_set, 0, sizeof h->check_set);
    memset(&h->fail_set, 0, sizeof h->fail_set);
    memset(&h->both_set, 0, sizeof h->both_set);
    h->n_wide_chars = 0;
}

/* Append str ``s`` to ``list`` (at *n) as Latin-1 bytes (1), or to ``wide`` when it has a
 * code point above 255 (0). -1 with an exception for a needle shorter than 4 or too many. */
static int needle_put(PyObject *s, int group, Needle *list, int *n, PyObject *wide) {
    if (!PyUnicode_Check(s)) {
        PyErr_SetString(PyExc_TypeError, "set_hints: hints must be str");
        return -1;
    }
    if (PyUnicode_MAX_CHAR_VALUE(s) > 255) return PyList_Append(wide, s);
    Py_ssize_t m = PyUnicode_GET_LENGTH(s);
    if (m < 4 || *n >= MAX_NEEDLES || PyUnicode_FindChar(s, 0, 0, m, 1) != -1) {
        PyErr_Format(PyExc_ValueError, "set_hints: %R is shorter than 4, holds NUL, or too many hints", s);
        return -1;
    }
    char *copy = PyMem_Malloc((size_t)m + 1);
    if (!copy) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t j = 0; j < m; j++) copy[j] = (char)PyUnicode_READ_CHAR(s, j);
    copy[m] = 0;
    list[*n].s = copy;
    list[*n].group = group;
    (*n)++;
    return 1;
}

/* set_hints(summary, pair, failure, head, tail, summary_tail): parse_checks' tail hints, its
 * pair ("error" counts with "=="), the rules' hints (status._SUMMARY_HINTS, _SUMMARY_PAIR,
 * _HINTS), and how much of a text each looks at (status._HEAD and _TAIL for the rules,
 * _summaries._TAIL for parse_checks). True when set; False, and no_hints answers False
 * (the classifier runs), when the two tails differ: the scan reads one tail for both. */
static PyObject *set_hints(PyObject *self, PyObject *args) {
    PyObject *summary, *pair, *failure;
    Py_ssize_t head, tail, summary_tail;
    if (!PyArg_ParseTuple(args, "O!O!O!nnn", &PyTuple_Type, &summary, &PyTuple_Type, &pair, &PyTuple_Type, &failure,
                          &head, &tail, &summary_tail))
        return NULL;
    Hints *h = &state_of(self)->hints;
    if (head < 0 || tail < 0 || summary_tail != tail) { /* the scan below reads one tail for both */
        init_needles(h);
        Py_RETURN_FALSE;
    }
    if (PyTuple_GET_SIZE(pair) != 2 || !PyUnicode_Check(PyTuple_GET_ITEM(pair, 1)) ||
        PyUnicode_GET_LENGTH(PyTuple_GET_ITEM(pair, 1)) < 1) {
        PyErr_SetString(PyExc_ValueError, "set_hints: pair must be two non-empty str");
        return NULL;
    }
    init_needles(h);
    PyObject *wide = PyList_New(0), *no_wide = PyList_New(0), *names = PyList_New(0);
    if (!wide || !no_wide || !names) goto fail;
    int nc = 0, nf = 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(summary); i++)
        if (needle_put(PyTuple_GET_ITEM(summary, i), G_CHECK, h->check, &nc, no_wide) < 0) goto fail;
    if (needle_put(PyTuple_GET_ITEM(pair, 0), G_ERROR, h->check, &nc, no_wide) < 0) goto fail;
    if (PyList_GET_SIZE(no_wide)) {
        PyErr_SetString(PyExc_ValueError, "set_hints: summary hints must be Latin-1");
        goto fail;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(failure); i++) {
        int put = needle_put(PyTuple_GET_ITEM(failure, i), G_FAIL, h->fail, &nf, wide);
        if (put < 0 || (put && PyList_Append(names, PyTuple_GET_ITEM(failure, i)) < 0)) goto fail;
    }
    needles_add(&h->check_set, h->check);
    needles_add(&h->fail_set, h->fail);
    needles_add(&h->both_set, h->check);
    needles_add(&h->both_set, h->fail);
    h->pair_second = Py_NewRef(PyTuple_GET_ITEM(pair, 1));
    h->wide = PyList_AsTuple(wide);
    h->fail_names = PyList_AsTuple(names);
    h->n_wide_chars = 0;
    for (Py_ssize_t i = 0; h->wide && i < PyTuple_GET_SIZE(h->wide); i++) {
        PyObject *w = PyTuple_GET_ITEM(h->wide, i);
        if (PyUnicode_GET_LENGTH(w) != 1) continue;
        if (h->n_wide_chars == MAX_WIDE_CHARS) {
            h->n_wide_chars = 0; /* too many: each is searched for */
            break;
        }
        h->wide_chars[h->n_wide_chars++] = PyUnicode_READ_CHAR(w, 0);
    }
    Py_DECREF(wide);
    Py_DECREF(no_wide);
    Py_DECREF(names);
    if (!h->wide || !h->fail_names) {
        init_needles(h);
        return NULL;
    }
    h->head = head;
    h->tail = tail;
    h->set = 1;
    Py_RETURN_TRUE;
fail:
    Py_XDECREF(wide);
    Py_XDECREF(no_wide);
    Py_XDECREF(names);
    init_needles(h);
    return NULL;
}

/* Look for the needles of ``ns`` in d[a:b] (Latin-1 bytes: parts); the groups of those
 * found ("==" looked for only after "error"), returned early once one of the ``stop`` groups
 * is in. ``hit``, when given: a bit set for each needle found, by its place in the set. */
static int scan(const NeedleSet *ns, const unsigned char *d, Py_ssize_t a, Py_ssize_t b, int stop, uint64_t *hit) {
    int found = 0;
    for (Py_ssize_t i = a; i + 4 <= b; i++) {
        uint32_t v = load4(d + i);
        unsigned key = bloom_key(v);
        if (!((ns->bloom[key >> 6] >> (key & 63)) & 1)) continue;
        for (int k = ns->chain[key & 255] - 1; k >= 0; k = ns->next[k] - 1)
            if (ns->head[k] == v && (size_t)(b - i) >= ns->len[k] && !memcmp(d + i, ns->list[k]->s, ns->len[k])) {
                found |= ns->list[k]->group;
                if (hit) hit[k >> 6] |= 1ULL << (k & 63);
            }
        if (found & stop) return found;
    }
    return found;
}

/* 1 when some check hint is in the tail (G_CHECK, or G_ERROR with the pair's second). The
 * second is found by its first character (memchr), then matched in place: a two-character
 * PyUnicode_Find reads the tail a character at a time, 4-5% of score_bench's `score`. */
static int check_hit(const Hints *h, PyObject *text, int found, Py_ssize_t a, Py_ssize_t b) {
    if (found & G_CHECK) return 1;
    if (!(found & G_ERROR)) return 0;
    Py_ssize_t at = a, m = 0;
    while (!m && (at = PyUnicode_FindChar(text, PyUnicode_READ_CHAR(h->pair_second, 0), at, b, 1)) >= 0)
        m = PyUnicode_Tailmatch(text, h->pair_second, at++, b, -1);
    return at == -2 || m < 0 ? -1 : m;
}

/* text[a:b] as Latin-1 bytes into q, a code point above 255 as 0 (in no needle: set_hints);
 * 1 when one of the one-character wide hints is among those. ``kind`` is a constant where
 * it is inlined: a loop reading any kind, PyUnicode_READ's switch at every character, made
 * a two-byte text 4x slower than the same text in one byte. A two-byte str is read four
 * chars at a time while they are below 256: a Claude Code file read is two-byte, by a wide
 * arrow on each line, and scanning its chars in place, four sliding through a word, took
 * 2.3x as long as scanning the same text in one byte (docs/speed.md). */
static inline Py_ALWAYS_INLINE int narrow(const Hints *h, const int kind, const void *data, Py_ssize_t a, Py_ssize_t b,
                                          unsigned char *q) {
    int wide = 0;
    for (Py_ssize_t i = a; i < b; i++) {
        if (kind == PyUnicode_2BYTE_KIND && (i = ucs2_latin1((const Py_UCS2 *)data, a, i, b, q)) >= b) break;
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        for (int k = 0; c > 255 && k < h->n_wide_chars; k++) wide |= c == h->wide_chars[k];
        q[i - a] = c > 255 ? 0 : (unsigned char)c;
    }
    return wide;
}

/* The parts of a str the hints are looked for in, as Latin-1 bytes (narrow; a one-byte str
 * is read in place): all of it when it has at most head + tail chars (``whole``), else its
 * head at d[:head_end] and its tail at d[tail_at:n]. */
typedef struct {
    const unsigned char *d;
    Py_ssize_t head_end, tail_at, n;
    int whole, wide; /* wide: a one-character wide hint is in them */
    unsigned char *own; /* allocated when the stack's room was too small */
} Parts;

#define PARTS_STACK 16384
static int parts_of(const Hints *h, PyObject *text, unsigned char *room, Parts *p) {
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t len = PyUnicode_GET_LENGTH(text);
    p->whole = len <= h->head + h->tail;
    p->own = NULL;
    p->wide = 0;
    if (kind == PyUnicode_1BYTE_KIND) {
        p->d = (const unsigned char *)data;
        p->n = len;
        p->head_end = p->whole ? len : h->head;
        p->tail_at = len > h->tail ? len - h->tail : 0;
        return 0;
    }
    p->n = p->whole ? len : h->head + h->tail;
    if (p->n > PARTS_STACK && !(room = p->own = malloc((size_t)p->n))) {
        PyErr_NoMemory();
        return -1;
    }
    p->d = room;
    if (p->whole) {
        p->head_end = len;
        p->tail_at = len > h->tail ? len - h->tail : 0;
        p->wide = kind == PyUnicode_2BYTE_KIND ? narrow(h, PyUnicode_2BYTE_KIND, data, 0, len, room)
                                               : narrow(h, PyUnicode_4BYTE_KIND, data, 0, len, room);
    } else {
        p->head_end = p->tail_at = h->head;
        p->wide = kind == PyUnicode_2BYTE_KIND
                      ? narrow(h, PyUnicode_2BYTE_KIND, data, 0, h->head, room) |
                            narrow(h, PyUnicode_2BYTE_KIND, data, len - h->tail, len, room + h->head)
                      : narrow(h, PyUnicode_4BYTE_KIND, data, 0, h->head, room) |
                            narrow(h, PyUnicode_4BYTE_KIND, data, len - h->tail, len, room + h->head);
    }
    return 0;
}

/* 1 when a wide hint other than the one-character ones narrow looks for is in text[a:b]
 * (PyUnicode_Find); only a text of a wider kind can hold one. */
static int wide_hit(const Hints *h, PyObject *text, Py_ssize_t a, Py_ssize_t b) {
    if (PyUnicode_KIND(text) == PyUnicode_1BYTE_KIND) return 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(h->wide); i++) {
        if (h->n_wide_chars && PyUnicode_GET_LENGTH(PyTuple_GET_ITEM(h->wide, i)) == 1) continue; /* narrow's */
        Py_ssize_t at = PyUnicode_Find(text, PyTuple_GET_ITEM(h->wide, i), a, b, 1);
        if (at != -1) return at == -2 ? -1 : 1;
    }
    return 0;
}

/* The hints set_hints gave; NULL with a TypeError when ``text`` is not a str, or unset */
static const Hints *hints_for(PyObject *self, PyObject *text, const char *fn) {
    if (!PyUnicode_CheckExact(text)) {
        PyErr_Format(PyExc_TypeError, "%s takes a str", fn);
        return NULL;
    }
    const ModState *st = state_of(self);
    return st && st->hints.set ? &st->hints : NULL;
}

/* True when status.classify_observation can find neither test counts nor a failure in
 * ``text`` by its substring pre-filters (parse_checks: a summary hint, or the pair, in the
 * tail; _has_failure_hint: a rule's hint in the head or tail, or a text starting with
 * "FAILED "). False until status.py has given the hints (set_hints). */
static PyObject *no_hints(PyObject *self, PyObject *text) {
    const Hints *h = hints_for(self, text, "no_hints");
    if (!h) return PyErr_Occurred() ? NULL : Py_NewRef(Py_False);
    unsigned char room[PARTS_STACK];
    Parts p;
    if (parts_of(h, text, room, &p) < 0) return NULL;
    Py_ssize_t len = PyUnicode_GET_LENGTH(text), t0 = len > h->tail ? len - h->tail : 0;
    int hit = p.wide;
    if (!hit && len <= h->tail) { /* the tail and the failure-hint part are the whole text */
        int found = scan(&h->both_set, p.d, 0, p.n, G_CHECK | G_FAIL, NULL);
        hit = found & G_FAIL ? 1 : check_hit(h, text, found, 0, len);
    } else if (!hit) {
        hit = check_hit(h, text, scan(&h->check_set, p.d, p.tail_at, p.n, G_CHECK, NULL), t0, len);
        if (!hit)
            hit = p.whole ? scan(&h->fail_set, p.d, 0, p.n, G_FAIL, NULL) != 0
                          : scan(&h->fail_set, p.d, 0, p.head_end, G_FAIL, NULL) ||
                                scan(&h->fail_set, p.d, p.tail_at, p.n, G_FAIL, NULL);
    }
    free(p.own);
    if (!hit) hit = p.whole ? wide_hit(h, text, 0, len) : wide_hit(h, text, 0, h->head) || wide_hit(h, text, t0, len);
    if (!hit && len >= 7) {
        static const char failed[] = "FAILED ";
        int k = 0;
        while (k < 7 && PyUnicode_READ_CHAR(text, k) == (unsigned char)failed[k]) k++;
        hit = k == 7;
    }
    if (hit < 0) return NULL;
    return Py_NewRef(hit ? Py_False : Py_True);
}

/* The rules' hints (status._HINTS) found in the parts of ``text`` the rules read (all of it
 * up to head + tail characters, else its head and its tail), as a frozenset of those str:
 * status._Obs skips a rule none of whose keys is there. None until set_hints. */
static PyObject *found_hints(PyObject *self, PyObject *text) {
    const Hints *h = hints_for(self, text, "found_hints");
    if (!h) return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
    unsigned char room[PARTS_STACK];
    Parts p;
    if (parts_of(h, text, room, &p) < 0) return NULL;
    Py_ssize_t len = PyUnicode_GET_LENGTH(text), cut = p.whole ? len : h->head;
    uint64_t hit[(MAX_NEEDLES + 63) / 64] = {0};
    scan(&h->fail_set, p.d, 0, p.head_end, 0, hit);
    if (!p.whole) scan(&h->fail_set, p.d, p.tail_at, p.n, 0, hit);
    free(p.own);
    PyObject *out = PyFrozenSet_New(NULL);
    for (int k = 0; out && k < h->fail_set.n; k++)
        if (((hit[k >> 6] >> (k & 63)) & 1) && PySet_Add(out, PyTuple_GET_ITEM(h->fail_names, k)) < 0) Py_CLEAR(out);
    for (Py_ssize_t i = 0; out && PyUnicode_KIND(text) != PyUnicode_1BYTE_KIND && i < PyTuple_GET_SIZE(h->wide); i++) {
        PyObject *w = PyTuple_GET_ITEM(h->wide, i);
        Py_ssize_t at = PyUnicode_Find(text, w, 0, cut, 1);
        if (at == -1 && cut < len) at = PyUnicode_Find(text, w, len - h->tail, len, 1);
        if (at == -2 || (at >= 0 && PySet_Add(out, w) < 0)) Py_CLEAR(out);
    }
    return out;
}

/* ---------------------------------------------------------------- decide_pass */

static PyObject *setup_decide(PyObject *self, PyObject *args) {
    Decide d;
    if (!PyArg_ParseTuple(args, "OOOOOOO!dd", &d.candidate_kinds, &d.alternative_kinds, &d.invalid_statuses,
                          &d.kind_error, &d.status_none, &d.status_passed, &PyDict_Type, &d.q_status,
                          &d.discard_novelty, &d.promote_novelty))
        return NULL;
    Decide *D = &state_of(self)->decide;
    PyObject **dst = (PyObject **)D, **src = (PyObject **)&d;
    size_t nobj = offsetof(Decide, discard_novelty) / sizeof(PyObject *);
    for (size_t i = 0; i < nobj; i++) {
        Py_INCREF(src[i]);
        Py_XSETREF(dst[i], src[i]);
    }
    D->discard_novelty = d.discard_novelty;
    D->promote_novelty = d.promote_novelty;
    Py_RETURN_NONE;
}

/* gating.gate_memory's decision for one event, without its reason (gating.py words it):
 * 0 promote, 1 scratch, 2 discard; -1 with an exception. */
static int gate_memory(const Decide *D, PyObject *status, PyObject *kind, int has_obs, double n, double a,
                       double p, double memory_write) {
    if (a < 1.0) return 2;
    int invalid = PySet_Contains(D->invalid_statuses, status);
    if (invalid < 0) return -1;
    if (invalid || kind == D->kind_error) return 2;
    if (has_obs && n < D->discard_novelty) return 2;
    if (status == D->status_none) return 1;
    return n >= D->promote_novelty && (p >= 1.0 || memory_write >= 1.0) ? 0 : 1;
}

typedef struct {
    int64_t t;
    int scored;
    double score;
} Cand;

typedef struct {
    int64_t step;
    size_t n; /* its alternatives so far */
} RoiGroup;

typedef struct {
    RoiGroup *g;
    size_t n, cap;
    Py_ssize_t *slots; /* index + 1 */
    size_t mask;
} RoiGroups;

static RoiGroup *roi_group(RoiGroups *r, int64_t step) {
    if (!r->slots) {
        r->mask = 255;
        r->slots = calloc(r->mask + 1, sizeof(Py_ssize_t));
        if (!r->slots) return (RoiGroup *)PyErr_NoMemory();
    }
    size_t j = (size_t)fmix((uint64_t)step) & r->mask;
    while (r->slots[j]) {
        RoiGroup *g = &r->g[r->slots[j] - 1];
        if (g->step == step) return g;
        j = (j + 1) & r->mask;
    }
    if (r->n == r->cap) {
        size_t c = r->cap ? r->cap * 2 : 64;
        RoiGroup *q = realloc(r->g, c * sizeof(RoiGroup));
        if (!q) return (RoiGroup *)PyErr_NoMemory();
        r->g = q;
        r->cap = c;
    }
    RoiGroup *g = &r->g[r->n++];
    g->step = step;
    g->n = 0;
    r->slots[j] = (Py_ssize_t)r->n;
    if (r->n * 2 > r->mask + 1) { /* rehash */
        size_t m = (r->mask + 1) * 2;
        Py_ssize_t *slots = table_alloc(m * sizeof(Py_ssize_t));
        if (!slots) return (RoiGroup *)PyErr_NoMemory();
        for (size_t i = 0; i < r->n; i++) {
            size_t k = (size_t)fmix((uint64_t)r->g[i].step) & (m - 1);
            while (slots[k]) k = (k + 1) & (m - 1);
            slots[k] = (Py_ssize_t)i + 1;
        }
        free(r->slots);
        r->slots = slots;
        r->mask = m - 1;
    }
    return g;
}

static void roi_free(RoiGroups *r) {
    free(r->g);
    free(r->slots);
}

/* _best(group): (score, event) of the best-scored candidate, ties to the latest; 0 if none */
static int best_of(Cand *g, size_t n, double *score, int64_t *t) {
    int found = 0;
    for (size_t i = 0; i < n; i++)
        if (g[i].scored && (!found || g[i].score >= *score)) {
            *score = g[i].score;
            *t = g[i].t;
            found = 1;
        }
    return found;
}

static int get_doubles(PyObject *obj, Py_buffer *view, Py_ssize_t n) {
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return -1;
    if (view->itemsize != 8 || !view->format || strcmp(view->format, "d") != 0 || view->len != n * 8) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_TypeError, "columns must be float64 arrays of one length per event");
        return -1;
    }
    return 0;
}

/* The run figures of adapter/decide.py's loop, without a Decision (decide.py's DecideState
 * builds those, and words their reasons, when they are read): (has_obs, first_pass,
 * first_rollback, (promote, scratch, discard), ranked steps), from the events and the
 * prefix columns n, a, p, m and c. */
static PyObject *decide_pass(PyObject *self, PyObject *args) {
    PyObject *events, *cols[5];
    if (!PyArg_ParseTuple(args, "O!OOOOO", &PyList_Type, &events, &cols[0], &cols[1], &cols[2], &cols[3], &cols[4]))
        return NULL;
    const ModState *st = state_of(self);
    const Decide *D = &st->decide;
    if (!D->q_status) {
        PyErr_SetString(PyExc_RuntimeError, "_speedups.setup_decide() was not called");
        return NULL;
    }
    Py_ssize_t T = PyList_GET_SIZE(events);
    Py_buffer v[5];
    int nv = 0;
    PyObject *result = NULL;
    for (; nv < 5; nv++)
        if (get_doubles(cols[nv], &v[nv], T) < 0) goto release;
    const double *nn = v[0].buf, *aa = v[1].buf, *pp = v[2].buf, *mm = v[3].buf, *cc = v[4].buf;

    unsigned char *has_obs = calloc((size_t)(T > 0 ? T : 1), 1);
    Cand *group = NULL;
    size_t ngroup = 0, capgroup = 0;
    RoiGroups rois = {0};
    if (!has_obs) {
        PyErr_NoMemory();
        goto fail;
    }
    int64_t known_checks = 0, group_step = 0, first_pass = -1, fr_t = -1, fr_to = -1;
    int have_best = 0;
    double best_score = 0.0;
    int64_t best_t = 0;
    Py_ssize_t counts[3] = {0, 0, 0}, ranked = 0;

    for (Py_ssize_t t = 0; t < T; t++) {
        PyObject *ev = PyList_GET_ITEM(events, t);
        PyObject *kind = NULL, *status = NULL, *step_o = NULL, *ch = NULL, *obs = NULL;
        int64_t step;
        kind = EV_GET(ev, kind);
        status = kind ? EV_GET(ev, status) : NULL;
        step_o = status ? EV_GET(ev, step) : NULL;
        ch = step_o ? EV_GET(ev, checks) : NULL;
        obs = ch ? EV_GET(ev, observation_text) : NULL;
        if (!obs) goto event_fail;
        if (as_i64(step_o, 0, &step) < 0 || step_o == Py_None || !PyUnicode_CheckExact(obs)) {
            fallback(st, "step is not a small int, or the text not a str");
            goto event_fail;
        }
        has_obs[t] = PyUnicode_GET_LENGTH(obs) > 0 && !all_space(obs);

        /* candidates and their scores (roll-back rule) */
        int is_cand = PySet_Contains(D->candidate_kinds, kind);
        if (is_cand < 0) goto event_fail;
        if (is_cand) {
            if (ngroup && step != group_step) {
                double sc = 0.0;
                int64_t st = 0;
                if (best_of(group, ngroup, &sc, &st) && (!have_best || sc >= best_score)) {
                    best_score = sc;
                    best_t = st;
                    have_best = 1;
                }
                ngroup = 0;
            }
            group_step = step;
            if (ngroup == capgroup) {
                size_t c = capgroup ? capgroup * 2 : 16;
                Cand *q = realloc(group, c * sizeof(Cand));
                if (!q) {
                    PyErr_NoMemory();
                    goto event_fail;
                }
                group = q;
                capgroup = c;
            }
            group[ngroup++] = (Cand){t, 0, 0.0};
        }
        int64_t passed = 0, failed = 0, total = 0, ran = 0;
        if (ch != Py_None) {
            PyObject *pv = CH_GET(ch, passed), *fv = CH_GET(ch, failed),
                     *tv = CH_GET(ch, total);
            int ok = pv && fv && tv;
            int bad = ok && (pv == Py_None || fv == Py_None || as_i64(pv, 0, &passed) < 0 ||
                             as_i64(fv, 0, &failed) < 0 || as_i64(tv, 0, &total) < 0);
            Py_XDECREF(pv);
            Py_XDECREF(fv);
            Py_XDECREF(tv);
            if (!ok) goto event_fail;
            if (bad) {
                fallback(st, "checks counts are not small ints");
                goto event_fail;
            }
            ran = passed + failed;
            if (ran > (1LL << 53)) { /* (double)ran would round: Python divides the exact ints */
                fallback(st, "checks counts sum past 2**53");
                goto event_fail;
            }
            if (ran > 0) {
                int64_t m = known_checks;
                if (total > m) m = total;
                if (ran > m) m = ran;
                known_checks = m;
            }
        }
        if (ngroup && status != D->status_none && (group[ngroup - 1].t == t || cc[t] >= 1.0)) {
            double score;
            if (ch != Py_None && ran > 0) { /* verdict_score */
                int64_t den = known_checks;
                if (total > den) den = total;
                if (ran > den) den = ran;
                score = (double)passed / (double)den;
            } else {
                PyObject *q = PyDict_GetItemWithError(D->q_status, status);
                if (!q) {
                    if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, status);
                    goto event_fail;
                }
                score = PyFloat_AsDouble(q);
                if (score == -1.0 && PyErr_Occurred()) goto event_fail;
            }
            group[ngroup - 1].scored = 1;
            group[ngroup - 1].score = score;
        }
        if (status == D->status_passed && first_pass < 0) first_pass = t;
        double cur_score = 0.0;
        int64_t cur_t = 0;
        int have_cur = best_of(group, ngroup, &cur_score, &cur_t);

        /* memory gating */
        int mem = gate_memory(D, status, kind, has_obs[t], nn[t], aa[t], pp[t], mm[t]);
        if (mem < 0) goto event_fail;
        counts[mem]++;

        /* the first roll-back (the stop rules are read from the columns in decide.py) */
        if (have_cur && have_best && best_score > cur_score && fr_t < 0) {
            fr_t = t;
            fr_to = best_t;
        }

        /* alternatives sharing a step index: the steps where they are ranked (two or more) */
        int is_alt = PySet_Contains(D->alternative_kinds, kind);
        if (is_alt < 0) goto event_fail;
        if (is_alt) {
            RoiGroup *g = roi_group(&rois, step);
            if (!g) goto event_fail;
            if (++g->n == 2) ranked++;
        }
        Py_DECREF(kind);
        Py_DECREF(status);
        Py_DECREF(step_o);
        Py_DECREF(ch);
        Py_DECREF(obs);
        continue;
    event_fail:
        Py_XDECREF(kind);
        Py_XDECREF(status);
        Py_XDECREF(step_o);
        Py_XDECREF(ch);
        Py_XDECREF(obs);
        goto fail;
    }
    {
        PyObject *fp = first_pass >= 0 ? PyLong_FromLongLong(first_pass) : Py_NewRef(Py_None);
        PyObject *fr = fr_t >= 0 ? Py_BuildValue("(LL)", (long long)fr_t, (long long)fr_to) : Py_NewRef(Py_None);
        if (fp && fr)
            result = Py_BuildValue("(NNN(nnn)n)", bytearray_of(has_obs, (size_t)T), fp, fr, counts[0], counts[1],
                                   counts[2], ranked);
        else {
            Py_XDECREF(fp);
            Py_XDECREF(fr);
        }
    }
fail:
    free(has_obs);
    free(group);
    roi_free(&rois);
release:
    for (int k = 0; k < nv; k++) PyBuffer_Release(&v[k]);
    return result;
}

/* ---------------------------------------------------------------- shingle_hashes (tests) */

static PyObject *shingle_count(PyObject *self, PyObject *text) {
    if (!PyUnicode_CheckExact(text)) {
        PyErr_SetString(PyExc_TypeError, "shingle_count takes a str");
        return NULL;
    }
    ShingleWork w = {{0}};
    if (shingles(text, &w) < 0) {
        shingle_work_free(&w);
        return NULL;
    }
    size_t k = w.hashes.n;
    shingle_work_free(&w);
    return PyLong_FromSize_t(k);
}

/* ---------------------------------------------------------------- json_depth */

/* parsers/_values.depth: how many levels of dicts and lists (exact types, as a JSON parser
 * gives them) ``obj`` nests, a scalar 0, at most past + 1. Depth first, on a stack that
 * grows on the heap past 64 levels, so any depth is measured without recursion. Only
 * PyDict_Next and list reads run: no Python code can change a container under the walk. */
typedef struct {
    PyObject *c;
    Py_ssize_t pos;
} DepthFrame;

static PyObject *json_depth(PyObject *self, PyObject *args) {
    PyObject *obj;
    Py_ssize_t past;
    (void)self;
    if (!PyArg_ParseTuple(args, "On", &obj, &past)) return NULL;
    if ((!PyDict_CheckExact(obj) && !PyList_CheckExact(obj)) || past < 0) return PyLong_FromLong(0);
    size_t limit = (size_t)past + 1, n = 0, cap = 64, best = 1;
    DepthFrame local[64], *stack = local;
    stack[n++] = (DepthFrame){obj, 0};
    while (n && best < limit) {
        DepthFrame *f = &stack[n - 1];
        PyObject *child = NULL, *key, *v;
        if (PyList_CheckExact(f->c)) {
            while (!child && f->pos < PyList_GET_SIZE(f->c)) {
                v = PyList_GET_ITEM(f->c, f->pos++);
                if (PyDict_CheckExact(v) || PyList_CheckExact(v)) child = v;
            }
        } else {
            while (!child && PyDict_Next(f->c, &f->pos, &key, &v))
                if (PyDict_CheckExact(v) || PyList_CheckExact(v)) child = v;
        }
        if (!child) {
            n--;
            continue;
        }
        if (n == cap) {
            DepthFrame *grown = malloc(2 * cap * sizeof(DepthFrame));
            if (!grown) {
                if (stack != local) free(stack);
                return PyErr_NoMemory();
            }
            memcpy(grown, stack, cap * sizeof(DepthFrame));
            if (stack != local) free(stack);
            stack = grown;
            cap *= 2;
        }
        stack[n++] = (DepthFrame){child, 0};
        if (n > best) best = n;
    }
    if (stack != local) free(stack);
    return PyLong_FromSize_t(best < limit ? best : limit);
}

/* ---------------------------------------------------------------- contains */

static PyObject *contains(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2 || !PyBytes_Check(args[0]) || !PyBytes_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "contains(haystack: bytes, needle: bytes)");
        return NULL;
    }
    Py_ssize_t n = PyBytes_GET_SIZE(args[0]), m = PyBytes_GET_SIZE(args[1]);
    if (m > n) Py_RETURN_FALSE;
    if (m == 0) Py_RETURN_TRUE;
    const char *h = PyBytes_AS_STRING(args[0]), *x = PyBytes_AS_STRING(args[1]);
    return PyBool_FromLong(memmem(h, (size_t)n, x, (size_t)m) != NULL);
}

static PyMethodDef methods[] = {
    {"setup", setup, METH_VARARGS, "Give the module the model's kinds, statuses and severities."},
    {"setup_slots", setup_slots, METH_VARARGS, "Let the passes read Event and Checks fields from their slots."},
    {"feature_pass", feature_pass, METH_VARARGS, "The per-event loop of features.compute_features."},
    {"set_tokens", set_tokens, METH_VARARGS,
     "Give feature_pass features._TOKEN_TABLE, MIN_TOKEN and _EDGE (False: it declines)."},
    {"event_columns", event_columns, METH_VARARGS, "The numbers raw cost and the gates read of each event."},
    {"no_hints", no_hints, METH_O, "True when the classifier's substring pre-filters all miss."},
    {"set_hints", set_hints, METH_VARARGS, "Give no_hints status.py's hint lists and the head and tail sizes."},
    {"found_hints", found_hints, METH_O, "The rules' hints in the head and the tail of a str."},
    {"json_depth", json_depth, METH_VARARGS, "parsers._values.depth(obj, past) of a JSON value."},
    {"contains", (PyCFunction)(void (*)(void))contains, METH_FASTCALL, "needle in haystack, two bytes objects."},
    {"shingle_count", shingle_count, METH_O, "len(features.shingles(text)), for tests."},
    {"setup_decide", setup_decide, METH_VARARGS, "Give decide_pass the adapter's kinds, statuses and thresholds."},
    {"decide_pass", decide_pass, METH_VARARGS, "The run figures of adapter.decide's loop (no Decision objects)."},
    {NULL, NULL, 0, NULL},
};

static int module_traverse(PyObject *m, visitproc visit, void *arg) {
    ModState *st = state_of(m);
    if (!st) return 0;
    Py_VISIT(st->hints.pair_second);
    Py_VISIT(st->hints.wide);
    Py_VISIT(st->hints.fail_names);
    PyObject **objs = (PyObject **)&st->decide;
    for (size_t i = 0; i < offsetof(Decide, discard_novelty) / sizeof(PyObject *); i++) Py_VISIT(objs[i]);
    objs = (PyObject **)&st->core;
    for (size_t i = 0; i < sizeof(Core) / sizeof(PyObject *); i++) Py_VISIT(objs[i]);
    Py_VISIT(st->event_slots.type);
    Py_VISIT(st->checks_slots.type);
    return 0;
}

static int module_clear(PyObject *m) {
    ModState *st = state_of(m);
    if (!st) return 0;
    init_needles(&st->hints);
    PyObject **objs = (PyObject **)&st->decide;
    for (size_t i = 0; i < offsetof(Decide, discard_novelty) / sizeof(PyObject *); i++) Py_CLEAR(objs[i]);
    objs = (PyObject **)&st->core;
    for (size_t i = 0; i < sizeof(Core) / sizeof(PyObject *); i++) Py_CLEAR(objs[i]);
    objs = (PyObject **)&st->names;
    for (size_t i = 0; i < sizeof(Names) / sizeof(PyObject *); i++) Py_CLEAR(objs[i]);
    SlotReader *readers[] = {&st->event_slots, &st->checks_slots};
    for (int r = 0; r < 2; r++) {
        for (int i = 0; i < SLOT_TABLE; i++) Py_CLEAR(readers[r]->names[i]);
        Py_CLEAR(readers[r]->type);
    }
    return 0;
}

static void module_free(void *m) { module_clear((PyObject *)m); }

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_speedups", NULL, sizeof(ModState), methods, NULL,
                                    module_traverse, module_clear, module_free};

PyMODINIT_FUNC PyInit__speedups(void) {
    init_tables();
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Names *nm = &state_of(m)->names;
#define NAME_INIT(n) \
    if (!(nm->n = PyUnicode_InternFromString(#n))) goto fail;
    NAME_LIST(NAME_INIT)
    if (PyModule_AddStringConstant(m, "SOURCE_HASH", EFC_SOURCE_HASH) < 0) goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
