"""The strategy chain that decides one class of a prepared layer, cheapest first.

    decide          the prepared layer, and the chain: reflections and
                    candidates, then the programs, always ending exactly
    supports        the coordinates of a sparse candidate
    candidates      a whitened candidate for rows sharing a direction
    braid           the paper's Braid-reflect search, and its reflections
    programs        the programs over a growing set of rivals (Clarkson):
                    the nearest point, the linear program
    bounded         a class in a box or on the orthant of many dimensions:
                    a float bounded-variable simplex guesses, exact checks prove
    nearest         Wolfe's nearest point of a hull to the origin
    feasibility     strict linear feasibility: floats, Decimals or exact
                    integers propose, exact checks decide
    span            exact coordinates on the span of the rows' differences
    lines           one-dimensional layers: the upper envelope of lines

This package imports nothing itself.
"""
