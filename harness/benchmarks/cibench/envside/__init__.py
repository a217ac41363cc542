"""CIBench on the env side (standard library only): its sessions, step by step.

check    a session's steps run apart, each graded as upstream grades it
cells    what a session does around its steps: data files, seeds, figures
scores   upstream's step scores: num, ROUGE-1 text, SSIM figures
capture  the references run once, their outputs printed (``capture`` command)
"""
