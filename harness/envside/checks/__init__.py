"""The checks: the generic helpers every format's generated context imports.

formatlib  helpers the generated contexts of the formats import
witness    what the check saw of a test's own code: that it ran to its end
"""
