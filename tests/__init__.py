"""The test suite: one module per module of the package, the command end to
end, and golden files.

Either command runs all of it from the repository root:

    python -m unittest discover -s tests
    python -m unittest
"""
