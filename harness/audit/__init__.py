"""The health audit: do a problem's tests still tell a right answer from a wrong one, in each combo?"""
