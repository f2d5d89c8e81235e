"""A progress line for a long check: classes done, rate, time left.

On a terminal one line is redrawn in place; in a log (``plain``: CI, a
file, a pipe) a line is added every few seconds instead, so that the log
shows the check is alive without filling up.

    Progress       progress(done, total) for check_layer, drawn on a terminal
                   or written as plain lines
    progress_line  the line's text
    duration       seconds as 42s, 3m 05s or 2h 07m
"""

import math
import time

__all__ = ["Progress", "progress_line", "duration"]


class Progress:
    """progress(done, total) for check_layer: one line on the terminal ``err``.

    The line is redrawn at most every _REDRAW seconds of ``clock``; the
    rate counts from the first call, as the time before it goes to reading
    and preparing the layer, which ``status`` can say meanwhile.  ``wipe``
    clears the line, if one was drawn.
    A write that raises ``failure`` ends the drawing, not the check; the
    line is cut to fit a terminal ``columns`` wide.  ``plain`` writes each
    line whole, ending in a newline, at most every _PLAIN_EVERY seconds,
    and wipes nothing: for a log, where a carriage return draws nothing.
    """

    def __init__(self, err, clock=time.monotonic, failure=OSError, columns=80, plain=False):
        self.err = err         # None once a write failed: a progress line is not worth more
        self.clock = clock
        self.failure = failure
        self.plain = plain
        self.every = _PLAIN_EVERY if plain else _REDRAW
        # A line as wide as the terminal wraps, and \r then redraws only its last row.
        self.room = max(columns - 1, 1)
        self.drawn = self.started = clock()   # last drawn: none yet, so the start
        self.first = None      # (done, time) at the first call
        self.width = 0         # the longest line drawn, all of which a redraw covers

    def __call__(self, done, total):
        now = self.clock()
        if self.first is None:
            self.first = done, now
        if self.plain and done == total:
            # A log keeps its lines: the last one says the check ended, and
            # how long it took from reading the layer on.
            self.status("checked %d/%d classes in %s" % (done, total,
                                                         duration(now - self.started)))
            return
        if self.err is None or done == total or now - self.drawn < self.every:
            return
        counted, since = self.first
        rate = (done - counted) / (now - since) if done > counted and now > since else None
        self.status(progress_line(done, total, rate))
        self.drawn = now

    def status(self, text):
        """Draw ``text`` at once (before the first class too: reading and
        preparing a large layer can take minutes)."""
        if self.plain:
            self._write(text + "\n")
        elif self.err is not None:
            line = text[:self.room]
            self._write("\r" + line.ljust(self.width))
            self.width = max(self.width, len(line))

    def wipe(self):
        if self.width:
            self._write("\r%s\r" % (" " * self.width))
            self.width = 0

    def _write(self, text):
        if self.err is not None:
            try:
                self.err.write(text)
            except self.failure:
                self.err = None


_REDRAW = 0.25   # seconds between redraws of the progress line
_PLAIN_EVERY = 5   # seconds between lines in a log: alive, yet short


def progress_line(done, total, rate=None):
    """The progress line: classes done of ``total`` and, given the ``rate``
    in classes a second, the rate and the time left.

    >>> progress_line(3, 50257)
    'checked 3/50257 classes'
    >>> progress_line(1200, 50257, 14.3)
    'checked 1200/50257 classes, 14.3 classes/s, 57m 11s left'
    """
    if rate is None:
        return "checked %d/%d classes" % (done, total)
    return "checked %d/%d classes, %s classes/s, %s left" % (
        done, total, "%.0f" % rate if rate >= 100 else "%.3g" % rate,
        duration((total - done) / rate))


def duration(seconds):
    """``seconds`` rounded up (0s only when nothing is left), as 42s, 3m 05s or 2h 07m.

    >>> duration(41.2), duration(185), duration(7659)
    ('42s', '3m 05s', '2h 07m')
    """
    seconds = math.ceil(seconds)
    if seconds < 60:
        return "%ds" % seconds
    if seconds < 3600:
        return "%dm %02ds" % divmod(seconds, 60)
    return "%dh %02dm" % divmod(seconds // 60, 60)
