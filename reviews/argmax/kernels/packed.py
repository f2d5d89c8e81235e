"""All logits of a layer at a candidate input at once, exact in sign.

Checking a candidate x against all C classes one dot product at a time
costs C * d big-integer products.  Here the rows and the candidate are
rounded to a few bits and the rows packed, one field per class, into d
big integers per block of classes; a candidate's C rounded logits are
then d small-by-big products and a sum per block, with a rigorous bound
on the rounding, and only the classes whose rounded margin is within that
bound are checked one by one in exact integers.  Fields are sized by the
2-norms of the rounded rows and candidate (Cauchy-Schwarz), not by their
largest entries, so that in up to 4,000 dimensions or so a field of 2
bytes does; each block of rows is rounded by its own power of 2, and
rounded logits are compared with the class's exact logit, so the bound
counts one rounding, not two.  Where many margins in a block fall within
the coarse bound, the block is computed again with fields of more bits
(packed when first needed), so that few classes are checked one by one.
Blocks of rows too close to the rows' mean to reach the candidate's own
logit are skipped (Cauchy-Schwarz).  In 64 dimensions or more, each other
block is first screened in a few sqrt(d) of them: a head of the layer's
columns and one bound for the rest (Cauchy-Schwarz again), packed the
same way; the few rows the screen leaves are checked one by one, and the
block is computed in full only where it leaves many or a real rival.

    Packed      the packed rows; Packed.beaten_by(i, candidate, wanted, handicap=0),
                and Packed.near, the classes that may be within a handicap
    dot         the dot product of two sequences
"""

import heapq
import itertools
import math
import operator
import struct

__all__ = ["Packed", "dot"]

# Rivals ordered beyond those wanted, for the caller's next round.
_LOOKAHEAD = 8
# Bytes per field, coarse and fine.  A product costs a pass over the C
# fields, so narrow fields pay in many dimensions (2 bytes keep about 5
# bits of an entry of a Gaussian row for d = 64); where more than _REFINE
# margins of a block fall within the coarse bound, its fine fields (twice
# as wide: 8 bits more of each entry) cost less than checking them one by
# one.  In few dimensions products are cheap and one level of wide fields
# does.  Widths double where they must grow, so that struct reads them.
_FIELD_BYTES = 2
_FEW_DIMENSIONS = 16
_FEW_DIMENSION_FIELD_BYTES = 4
_REFINE = 16
# struct's standard sizes ("<"): a column packed, a block's fields read, in one call.
_STRUCT_CODES = {2: "H", 4: "I", 8: "Q"}
# Classes per block: few enough that skipping a block saves work, many
# enough that a product's cost dwarfs the interpreter's per block.
_BLOCK = 512
# The screen (Packed._cleared): from this width on, a head of
# _HEAD_ROOTS * sqrt(width) coordinates, at most half of them, and a bound
# for the rest.  A Gaussian rival's logit departs from the mean by about
# |w_j| |x| / sqrt(width), and the bound's slack is about (width - k) /
# width |w_j| |x|: k of a few sqrt(width) keeps the slack within the
# margins.  The head is chosen by the spreads of _SAMPLE rows or more.
# Past _SCREEN_CHECKS rows left in a block, the levels decide it.  Where it
# clears few blocks, one in _PROBE + 1 is still screened (Packed._screens).
_SCREEN_WIDTH = 64
_HEAD_ROOTS = 5
_SAMPLE = 1024
_SCREEN_CHECKS = 8
_PROBE = 16
# Coordinates of a candidate per magnitude, on average, from which their
# packed columns are added before one product (_grouped): below 4 the
# grouping cost more than it saved on 5000 x 64 Gaussian rows, above it
# saved 10-25% of the products on 8000 x 256 and 3000 x 256 rows.
_GROUP = 4


def dot(a, b):
    """The dot product of two sequences of numbers.

    >>> dot([1, 2], [3, 4])
    11
    """
    return sum(map(operator.mul, a, b))


def _rounded(values, shift):
    """The integers divided by 2**shift, rounded to the nearest."""
    if not shift:
        return list(values)
    half = 1 << (shift - 1)
    return [(v + half) >> shift for v in values]


class Packed:
    """All C logits of a candidate at once, exact in sign.

    ``rows`` are integer rows (weights, then the bias if any); a candidate is
    an integer vector of the same length, and logits are rows . candidate.
    Logits less m . x, m the rows' mean rounded to integers, order the
    classes as logits do, and a row with |w_j - m| |x| < (w_i - m) . x
    cannot reach logit_i (Cauchy-Schwarz).  The rows are packed less c, in
    order of decreasing distance from c: without a bias (``prune``), c = m,
    so that blocks of rows too close to m form a tail, not computed; with a
    bias, c = 0, and blocks too close to m are skipped all the same.  (The
    rounding orders the rivals found, and so the linear program's rows in
    reviews.argmax.check: c = 0 keeps them as they were with a bias.)

    >>> Packed([[3, 0], [0, 3], [2, 2]], prune=True).beaten_by(0, [1, 1], 2)
    [2, 1]
    """

    def __init__(self, rows, prune):
        self.rows = rows
        self.prune = prune
        width = len(rows[0])
        sums = [0] * width
        for row in rows:
            sums = list(map(operator.add, sums, row))
        self.mean = [v // len(rows) for v in sums]
        self.centre = self.mean if prune else [0] * width
        if width >= _SCREEN_WIDTH:
            # The spreads of a sample of the rows choose the head as well.
            self.head = _head(rows[::max(1, len(rows) // _SAMPLE)], self.mean)
        else:
            self.head = None
        squares, sizes, distances, roots = [], [], [], []
        mean_square = dot(self.mean, self.mean)
        for row in rows:
            if prune:
                apart = list(map(operator.sub, row, self.mean))
                square = distance = dot(apart, apart)
            else:
                apart, square = row, dot(row, row)
                distance = square - 2 * dot(row, self.mean) + mean_square
            squares.append(square)
            distances.append(distance)
            sizes.append(sum(map(abs, apart)))
            if self.head is not None:
                head = [row[k] - self.mean[k] for k in self.head]
                roots.append(_root_up(distance - dot(head, head)))
        self.order = sorted(range(len(rows)), key=lambda j: -squares[j])
        self.rank = {j: n for n, j in enumerate(self.order)}
        self.distances = [distances[j] for j in self.order]
        starts = range(0, len(rows), _BLOCK)
        self.farthest = [max(self.distances[start:start + _BLOCK]) for start in starts]
        self.nearest = [min(self.distances[start:start + _BLOCK]) for start in starts]
        # Each block's largest squared 2-norm and 1-norm, for its rounding.
        extents = [(squares[self.order[start]],
                    max(sizes[j] for j in self.order[start:start + _BLOCK])) for start in starts]
        # The coarse fields serve every candidate: packed now; finer ones when needed.
        if width < _FEW_DIMENSIONS:
            self.levels = [_PackedLevel(rows, self.centre, self.order, _FEW_DIMENSION_FIELD_BYTES,
                                   extents, eager=True)]
        else:
            coarse = _PackedLevel(rows, self.centre, self.order, _FIELD_BYTES, extents, eager=True)
            self.levels = [coarse, _PackedLevel(rows, self.centre, self.order, 2 * coarse.size,
                                           extents, eager=False)]
        if self.head is not None:
            # Made a row at a time: as lists, GPT-2's head's took about 300 MB at once.
            screen_rows = _ScreenRows(rows, self.mean, self.head, roots)
            self.screen = _PackedLevel(screen_rows, [0] * (len(self.head) + 1), self.order,
                                  _FIELD_BYTES, _extents(screen_rows, self.order), eager=True)
        # Blocks the screen cleared, was tried on, and was not tried on since.
        self.tally = [0, 0, 0]

    def beaten_by(self, i, candidate, wanted, handicap=0):
        """Up to ``wanted`` classes j != i with logit_j >= logit_i - handicap, exactly.

        An empty list proves that the candidate makes class i the strict
        maximum (by more than ``handicap``, an integer >= 0).  Rivals come
        largest (rounded) logit first.

        >>> layer = Packed([[1] * 64, [2] * 64, [0] * 63 + [100]], prune=True)
        >>> layer.beaten_by(0, [1] * 64, 2), layer.beaten_by(1, [1] * 64, 2)
        ([1, 2], [])
        """
        logit_i = dot(self.rows[i], candidate) - handicap
        found = []
        for j in self._suspects(i, candidate, logit_i, wanted):
            if j != i and dot(self.rows[j], candidate) >= logit_i:
                found.append(j)
                if len(found) == wanted:
                    break
        return found

    def near(self, i, candidate, handicap, first=_LOOKAHEAD):
        """The classes j != i that may have logit_j >= logit_i - handicap: every
        one that does, and some that do not (no exact check), largest rounded
        logit first (sorted lazily past the ``first``).

        >>> layer = Packed([[1] * 64, [2] * 64, [0] * 63 + [100]], prune=True)
        >>> list(layer.near(0, [1] * 64, 0))
        [1, 2]
        """
        logit_i = dot(self.rows[i], candidate) - handicap
        return (j for j in self._suspects(i, candidate, logit_i, first) if j != i)

    def _suspects(self, i, candidate, logit, wanted):
        """Classes whose rounded margin proves nothing, for the candidate and
        class i's logit, ``logit``.

        A row with |w_j - m| |x| < logit - m . x, m the rows' mean, cannot
        reach it (Cauchy-Schwarz); so blocks of such rows are skipped, and
        such rows dropped.  In many dimensions each other block is screened
        first (Packed._cleared).  Each block left is computed with the
        coarse fields, and again with the fine ones where more than _REFINE
        of its margins are within the coarse bound (rows beyond the bound
        are rivals at any precision).  Largest rounded logit first; ordered
        lazily, as usually only about ``wanted`` of them are looked at.
        """
        square = dot(candidate, candidate)
        centred = logit - dot(self.mean, candidate)
        own = centred if self.prune else logit
        # Rows at a squared distance below ``near`` from the mean cannot reach.
        near = (centred * centred if centred > 0 else 0) if square else 0
        rank = self.rank[i]
        rounded = [None] * len(self.levels)
        screened = None
        flagged, values = [], []
        for number, start in enumerate(range(0, len(self.rows), _BLOCK)):
            if self.farthest[number] * square < near:
                continue
            mine = rank - start if start <= rank < start + _BLOCK else None
            if self._screens():
                if screened is None:
                    screened = self.screen.rounded(*_screened(candidate, square, self.head))
                cleared = self._cleared(number, screened, centred, mine, candidate, logit)
                self.tally[0] += cleared
                self.tally[1] += 1
                if cleared:
                    continue
            for n, level in enumerate(self.levels):
                if rounded[n] is None:
                    rounded[n] = level.rounded(candidate, square)
                suspects = level.suspects(number, rounded[n], own, mine,
                                          refine=n + 1 < len(self.levels))
                if suspects is not None:
                    break
            numbers, rounded_logits = suspects
            if self.nearest[number] * square < near:
                numbers, rounded_logits = _kept(numbers, rounded_logits, [
                    self.distances[start + n] * square >= near for n in numbers])
            flagged += [start + n for n in numbers]
            values += rounded_logits
        logit = dict(zip(flagged, values)).__getitem__
        return (self.order[n] for n in _largest_first(flagged, logit, wanted + _LOOKAHEAD))

    def _screens(self):
        """Whether to screen the next block: while the screen clears at least
        three in four of the blocks it is tried on (below that it costs
        about what it saves or more, as on rows sharing a direction, where
        candidates win by little), and one block in _PROBE + 1 otherwise,
        so that the tally follows the candidates.  Where it screens changes
        no answer."""
        if self.head is None:
            return False
        cleared, tried, skipped = self.tally
        screens = 4 * cleared >= 3 * tried or skipped == _PROBE
        self.tally[2] = 0 if screens else skipped + 1
        return screens

    def _cleared(self, number, screened, centred, mine, candidate, logit):
        """Whether no row of block ``number`` but the class's own (``mine``)
        reaches ``logit``, proved with the screen (``screened``: the
        candidate's screen terms; ``centred``: logit - m . x) and at most
        _SCREEN_CHECKS exact products.

        With S the head coordinates and R the others, rho_j >= |(w_j - m)_R|
        and sigma >= |x_R| (square roots rounded up):
        (w_j - m) . x <= (w_j - m)_S . x_S + rho_j sigma (Cauchy-Schwarz),
        the logit of the screen row ((w_j - m)_S, rho_j) at the screen
        candidate (x_S, sigma), a layer of k + 1 columns whose packed fields
        bound their rounding as the levels' do: a row it leaves out has
        (w_j - m) . x < logit - m . x.  The rows it leaves, if few, are
        checked one by one; otherwise the levels decide the block.
        """
        numbers, _ = self.screen.suspects(number, screened, centred, mine)
        if len(numbers) > _SCREEN_CHECKS:
            return False
        start = number * _BLOCK
        return all(dot(self.rows[self.order[start + n]], candidate) < logit for n in numbers)


class _PackedLevel:
    """The rows less c, rounded and packed in fields of ``size`` bytes or more, a block at a time.

    Each block's rows are rounded, by their own power of 2, to squared
    2-norms of at most ``budget``, and so is the candidate: a rounded logit
    is then at most ``budget`` in size (Cauchy-Schwarz).  A field holds
    half + (rounded logit) + (bound on its rounding) - (the class's own
    logit, exact, in the same units), which stays in [0, 2 * half) while
    the bound is below ``budget``; ``size`` grows until the bound is below
    half of it, where rounding still decides most margins.  Blocks are
    packed at once (``eager``) or each when a candidate first needs it.
    """

    def __init__(self, rows, centre, order, size, extents, eager):
        self.rows, self.centre, self.order = rows, centre, order
        width = len(rows[0])
        while not self._fits(size, width, extents):
            size *= 2
        self.size = size
        self.half = 4 * self.budget
        # Fields hold rounded + offset >= 0, so that every field is its own.
        self.offset = 2 * self.budget
        self.blocks = [None] * len(extents)
        if eager:
            for number in range(len(self.blocks)):
                self._block(number)
            # Not read again: rows made for these fields alone (the screen's) are freed.
            self.rows = None

    def _fits(self, size, width, extents):
        """Whether fields of ``size`` bytes hold every block's rounded logits
        and bound; sets ``budget`` and each block's ``shifts`` and ``sizes``
        (its rows' largest 1-norm once rounded, rounded up)."""
        self.budget = 1 << (8 * size - 3)
        if 2 * math.isqrt(self.budget) <= math.isqrt(width) + 1:
            return False
        self.shifts = [_rounding_shift(square, self.budget, width) for square, _ in extents]
        self.sizes = [-(-one_norm >> shift) for (_, one_norm), shift in zip(extents, self.shifts)]
        candidate_size = math.isqrt(width * self.budget) + 1
        # Below budget the fields hold every margin; below half of it the
        # bound is also at most half a full-length logit, so it decides.
        return (max(self.sizes) + candidate_size + 1) // 2 < self.budget // 2

    def _block(self, number):
        """(columns, ones, top bits, count) of a block of rows, packed when first asked for."""
        if self.blocks[number] is None:
            size, shift = self.size, self.shifts[number]
            members = self.order[number * _BLOCK:(number + 1) * _BLOCK]
            # round((w - c) / 2**t) + offset in one step: offset * 2**t is a multiple of 2**t.
            lift = (self.offset << shift) + (1 << shift >> 1)
            fields = [[(v - c + lift) >> shift for v, c in zip(self.rows[j], self.centre)]
                      for j in members]
            columns = [int.from_bytes(_little_endian(column, size), "little")
                       for column in zip(*fields)]
            ones = int.from_bytes((b"\x01" + bytes(size - 1)) * len(members), "little")
            self.blocks[number] = (columns, ones, ones << (8 * size - 1), len(members))
        return self.blocks[number]

    def rounded(self, candidate, square):
        """(terms, shift s, |y|_1, sum(y)) for the candidate rounded to y =
        round(x / 2**s), its terms grouped as _grouped says."""
        shift = _rounding_shift(square, self.budget, len(candidate))
        y = _rounded(candidate, shift)
        return _grouped(y), shift, sum(map(abs, y)), sum(y)

    def suspects(self, number, rounded, own, rank, refine=False):
        """([n, ...], [rounded logit, ...]) for the rows n of block ``number``
        that may reach the class's logit ``own`` (less c . x), the class's
        own row ``rank`` of the block (if not None) excepted; with
        ``refine``, None where more than _REFINE of them are within the bound.

        With rows rounded to r_j = round((w_j - c) / 2**t) and the candidate
        to y = round(x / 2**s), (w_j - c) . x - 2**(s+t) r_j . y =
        (w_j - c) . (x - 2**s y) + 2**s (w_j - c - 2**t r_j) . y, at most
        2**(s+t) (|w_j - c|_1 / 2**(t+1) + |y|_1 / 2) in size (a term
        without rounding is 0): row j cannot reach ``own`` where r_j . y
        plus that bound, in units of 2**(s+t), is below floor(own / 2**(s+t)).
        """
        terms, shift, y_size, y_sum = rounded
        unit = shift + self.shifts[number]
        bound = ((self.sizes[number] if shift else 0)
                 + (y_size if self.shifts[number] else 0) + 1) // 2
        target = own >> unit
        if target > self.budget + bound:
            return [], []
        # Below this, every row of the block is a suspect; so the fields hold it.
        target = max(target, -(self.budget + bound + 1))
        columns, ones, top, count = self._block(number)
        lift = self.half + bound - target - self.offset * y_sum
        singles, groups = terms
        column = columns.__getitem__
        lifted = sum([v * columns[k] for v, k in singles],
                     sum([v * (sum(map(column, plus)) - sum(map(column, minus)))
                          for v, plus, minus in groups], lift * ones))
        flags = lifted & top
        size = self.size
        if not flags or rank is not None and flags == 1 << (8 * size * rank + 8 * size - 1):
            return [], []
        flag_bytes = flags.to_bytes(count * size, "little")
        if refine:
            # Fields stay >= 2 * budget > 2 * bound: the subtraction borrows across none.
            beyond = ((lifted - 2 * bound * ones) & top).to_bytes(count * size, "little")
            if beyond.count(0) - flag_bytes.count(0) > _REFINE:
                return None
        numbers = list(itertools.compress(range(count), _fields(flag_bytes, size)))
        if rank in numbers:
            numbers.remove(rank)
        fields = _fields(lifted.to_bytes(count * size, "little"), size)
        base = target - bound - self.half
        return numbers, [(fields[n] + base) << unit for n in numbers]


def _grouped(y):
    """([(y_k, k), ...], [(v, [k, ...], [k, ...]), ...]): the candidate's
    terms, and where its entries repeat, for each v > 0 shared by two or
    more coordinates, those where y is v and those where it is -v.

    A coarse candidate's entries are a few bits: adding the packed columns
    of equal magnitude first, then multiplying once per magnitude, saves a
    product per coordinate but one (a sum of packed columns costs about
    what a small-by-big product does).  Where a magnitude is shared by
    fewer than _GROUP coordinates on average, grouping costs more than it
    saves, and every term is a product.

    >>> _grouped([2, -2, 1, 2, -5, 2, 2, -2, 2, 0, 2, 2, 2])
    ([(1, 2), (-5, 4)], [(2, [0, 3, 5, 6, 8, 10, 11, 12], [1, 7])])
    >>> _grouped([3, -1, 3])
    ([(3, 0), (-1, 1), (3, 2)], [])
    """
    magnitudes = set(map(abs, y))
    magnitudes.discard(0)
    if len(y) - y.count(0) < _GROUP * len(magnitudes):
        return [(v, k) for k, v in enumerate(y) if v], []
    groups = {}
    for k, v in enumerate(y):
        if v:
            groups.setdefault(abs(v), ([], []))[v < 0].append(k)
    singles, shared = [], []
    for v, (plus, minus) in sorted(groups.items()):
        if len(plus) + len(minus) == 1:
            singles.append((v, plus[0]) if plus else (-v, minus[0]))
        else:
            shared.append((v, plus, minus))
    return singles, shared


def _fields(data, size):
    """The integers of ``size`` bytes each in ``data``, least significant byte first.

    >>> _fields(b"\\x01\\x00\\x02\\x01", 2), _fields(bytes(15) + b"\\x01", 16) == (2 ** 120,)
    ((1, 258), True)
    """
    code = _STRUCT_CODES.get(size)
    if code:
        return struct.unpack("<%d%s" % (len(data) // size, code), data)
    return tuple(int.from_bytes(data[n:n + size], "little") for n in range(0, len(data), size))


def _little_endian(values, size):
    """Non-negative integers below 256**size as ``size`` bytes each, least significant first.

    >>> _little_endian([1, 258], 2), _little_endian([2 ** 120], 16) == bytes(15) + b"\\x01"
    (b'\\x01\\x00\\x02\\x01', True)
    """
    code = _STRUCT_CODES.get(size)
    if code:
        return struct.pack("<%d%s" % (len(values), code), *values)
    return b"".join(v.to_bytes(size, "little") for v in values)


def _rounding_shift(square, budget, width):
    """The least t >= 0 (or near it) that keeps a rounded vector within the budget.

    A vector of ``width`` integers with squared 2-norm ``square``, divided
    by 2**t and rounded, moves by at most sqrt(width) / 2, so its squared
    norm stays at most ``budget`` once 2 * (sqrt(square) + 1) <= 2**t *
    (2 * sqrt(budget) - sqrt(width) - 1), square roots rounded down.

    >>> _rounding_shift(100, 100, 4), _rounding_shift(101, 100, 4), _rounding_shift(10 ** 6, 100, 4)
    (0, 1, 7)
    """
    if square <= budget:
        return 0
    excess = 2 * (math.isqrt(square) + 1)
    room = 2 * math.isqrt(budget) - math.isqrt(width) - 1
    shift = max(1, excess.bit_length() - room.bit_length() - 1)
    while room << shift < excess:
        shift += 1
    return shift


def _kept(numbers, values, keep):
    """The numbers and values where ``keep`` is true.

    >>> _kept([1, 2, 3], [10, 20, 30], [True, False, True])
    ([1, 3], [10, 30])
    """
    return (list(itertools.compress(numbers, keep)), list(itertools.compress(values, keep)))


def _head(rows, mean):
    """The screen's head coordinates for rows of mean ``mean``: the last (a
    bias's, where the layer has one: its candidate entry, the common
    denominator, may dwarf the others') and the others of largest spread
    about the mean, _HEAD_ROOTS * sqrt(width) in all, at most half of them.

    >>> _head([[0, 5, 1, 0, 0, 2, 0, 9], [0, -5, 0, 3, 0, 0, 0, 1]], [0, 0, 0, 1, 0, 1, 0, 5])
    [1, 3, 5, 7]
    """
    spreads = [0] * len(mean)
    for row in rows:
        apart = list(map(operator.sub, row, mean))
        spreads = list(map(operator.add, spreads, map(operator.mul, apart, apart)))
    last = len(mean) - 1
    count = min(len(mean) // 2, _HEAD_ROOTS * math.isqrt(len(mean)))
    widest = sorted(range(last), key=lambda k: (-spreads[k], k))[:count - 1]
    return sorted(widest) + [last]


def _root_up(square):
    """The least integer at least the square root of ``square`` >= 0.

    >>> _root_up(16), _root_up(17)
    (4, 5)
    """
    root = math.isqrt(square)
    return root if root * root == square else root + 1


def _screened(candidate, square, head):
    """(the screen candidate (x_S, sigma), its squared 2-norm), sigma >= |x_R|,
    for x, ``candidate``, of squared 2-norm ``square``.

    >>> _screened([1, 2, 3, 4], 30, [0, 3])
    ([1, 4, 4], 33)
    """
    short = [candidate[k] for k in head]
    part = dot(short, short)
    sigma = _root_up(square - part)
    return short + [sigma], part + sigma * sigma


def _extents(rows, order):
    """Each block's largest squared 2-norm and 1-norm of ``rows``, in ``order``;
    each row read once.

    >>> _extents([[3, 4], [-1, 1]], [1, 0])
    [(25, 7)]
    """
    extents = []
    for start in range(0, len(order), _BLOCK):
        square = size = 0
        for j in order[start:start + _BLOCK]:
            row = rows[j]
            square, size = max(square, dot(row, row)), max(size, sum(map(abs, row)))
        extents.append((square, size))
    return extents


class _ScreenRows:
    """The screen's rows, each made when read: (w_j - m) on the head
    coordinates, then the bound ``roots[j]`` >= |(w_j - m) elsewhere|.

    >>> _ScreenRows([[5, 1, 2]], [1, 0, 0], [0], [3])[0]
    [4, 3]
    """

    def __init__(self, rows, mean, head, roots):
        self.rows, self.mean, self.head, self.roots = rows, mean, head, roots

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, j):
        mean, head = self.mean, self.head
        # Rows that make a few coordinates for less than a row (FloatRows.part) are asked for those.
        part = getattr(self.rows, "part", None)
        if part is None:
            row = self.rows[j]
            values = [row[k] for k in head]
        else:
            values = part(j, head)
        return [v - mean[k] for v, k in zip(values, head)] + [self.roots[j]]


def _largest_first(items, key, count):
    """sorted(items, key=key, reverse=True), sorting all only past the first ``count``."""
    first = heapq.nlargest(count, items, key=key)
    yield from first
    if len(first) < len(items):
        yield from sorted(items, key=key, reverse=True)[count:]
