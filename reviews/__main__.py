"""``python -m reviews``: the command line, run as reviews/counterexamples.py runs it."""

if __name__ == "__main__":
    from reviews.counterexamples import run
    run()
