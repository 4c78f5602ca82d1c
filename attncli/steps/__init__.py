"""The families of steps a walkthrough is made of, one module each (see base.py for the shape
they share, and attncli/steps/build.py for the order they run in)."""
