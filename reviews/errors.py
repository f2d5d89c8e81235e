"""The one error type of the suite.

Every function of the public API raises ``InputError`` for input it cannot
accept, with a message that names the problem and where it is.  It is a
``ValueError``, so ``except ValueError`` catches it too.  The command line
turns it into one line on stderr and exit status 2.
"""

__all__ = ["InputError"]


class InputError(ValueError):
    """Input the suite cannot accept; the message says what and where.

    ``input`` says which input it is about where a caller may need to tell:
    "weights", "bias", "layer" (the weights and the bias together), or None.

    >>> error = InputError("bias[2] is nan", input="bias")
    >>> str(error), error.input
    ('bias[2] is nan', 'bias')
    """

    def __init__(self, message, input=None):
        super().__init__(message)
        self.input = input

    def __reduce__(self):
        # Sent from a worker process whole, ``input`` too.
        return type(self), (str(self), self.input)
