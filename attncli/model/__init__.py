"""The data every stage passes on: the written-out arithmetic (expr.py) and the Walkthrough with
its steps, labelled matrices and reports (walkthrough.py). Data only: no stage's logic."""

from __future__ import annotations

from attncli.model.expr import (
    Difference,
    Exp,
    Expansion,
    Expr,
    Formula,
    Num,
    Product,
    Quotient,
    Sum,
    Tanh,
    Terms,
    Value,
    Vec,
)
from attncli.model.walkthrough import (
    Array,
    Cell,
    Drift,
    Finding,
    Header,
    HeadResult,
    Lazy,
    LowPrecisionReport,
    Matrix,
    NotebookView,
    Reading,
    Step,
    StepError,
    Verdict,
    Walkthrough,
    has,
    pick,
)

__all__ = ["Array", "Cell", "Difference", "Drift", "Exp", "Expansion", "Expr", "Finding",
           "Formula", "HeadResult", "Header", "Lazy", "LowPrecisionReport", "Matrix",
           "NotebookView",
           "Num", "Product", "Quotient", "Reading", "Step", "StepError", "Sum", "Tanh", "Terms",
           "Value", "Vec", "Verdict", "Walkthrough", "has", "pick"]
