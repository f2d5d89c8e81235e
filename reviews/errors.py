"""The one error type of the suite.

Every function of the public API raises ``InputError`` for input it cannot
accept, with a message that names the problem and where it is.  It is a
``ValueError``, so ``except ValueError`` catches it too.  The command line
turns it into one line on stderr and exit status 2.
"""

__all__ = ["InputError"]


class InputError(ValueError):
    """Input the suite cannot accept; the message says what and where."""
