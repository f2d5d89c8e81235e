"""The exact kernels the strategies and checks compute with.

    layer_input     a layer's numbers validated and made exact integers
    bfloat16        rows of bfloat16 values kept as stored, two bytes a
                    value, read off their patterns
    packed          all logits at a candidate at once, exact in sign
    sparse          all logits at a candidate of few nonzero coordinates,
                    from the layer's columns packed, exact in sign
    witness         a witness input as integers over one denominator,
                    read as its Fractions
    norms           exact checks of margins against T times a norm
    arithmetic      FLOATS, Decimals(n), EXACT: what a program computes in
    lifting         exact integer solutions by p-adic lifting, and the
                    first rows independent modulo a prime
    exact_division  big-integer division known to be exact

This package imports nothing itself.
"""
