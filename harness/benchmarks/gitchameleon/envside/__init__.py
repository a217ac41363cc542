"""GitChameleon on the env side (standard library only): its hidden pytest file run in
the check's process against the answer in a process of its own.

    check   pytest in the check's process, a plugin that counts the parts
"""
