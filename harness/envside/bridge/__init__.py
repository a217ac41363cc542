"""The bridge: an untrusted solution in a process apart from its check, and what crosses.

guard      untrusted solutions run in a child apart from their checks
resident   that child: started, asked and ended by the checker
solution   that child's own side: it runs the solution and answers the checker
wire       the messages between the checker and that child
transport  the values the child sends back, pickled one by one
digest     what crossed, by name and by each value's structure: what the audit compares
admission  how the checker admits them: default-deny, only from an allowlist
callstate  what the checker keeps of its calls across the boundary
recorder   the deprecation warnings a program raises, and whose code raised them
crossing_kinds      what the check may lend the solution, and what each loan lets it do
crossing_sql        what the SQL of a cursor the check lends may do
crossing_standins   the solution's objects as the check sees them
crossing_lending    the check's end of a call: what it sends the solution, what it lends
crossing_handed     what the test hands the solution, and how it comes back: as its own
crossing_borrowing  the solution's end of a call: what it was lent, reads, sends back
crossing_patches    the patches a test has active, carried to the solution's process
crossing_pyplot     Matplotlib across: the style one process shares, and the figures
crossing_context    what one process would share, carried with each call and back
crossing_errors     exceptions across the boundary, and the notes that tell why a call failed
"""
