"""Drives a command through a real pseudo-terminal, as a person at a terminal would.

Usage: pty-session.py CWD TIMEOUT_S PROMPT LINE... -- COMMAND...
Each LINE is typed after PROMPT appears; then the command must exit by itself within TIMEOUT_S
(a process left waiting on the terminal fails). Prints the terminal's text, then a last line
`exit=<code>` or `exit=timeout`.
"""
import os, pty, select, sys, time, signal

def main():
    cwd, timeout, prompt = sys.argv[1], float(sys.argv[2]), sys.argv[3].encode()
    split = sys.argv.index("--")
    lines, command = sys.argv[4:split], sys.argv[split + 1:]
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(cwd)
        os.execvp(command[0], command)
    seen = b""
    typed = 0
    consumed = 0
    deadline = time.time() + timeout
    status = None
    while time.time() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                chunk = b""
            if chunk:
                seen += chunk
        # One line per prompt, typed only once a new prompt has appeared.
        position = seen.find(prompt, consumed)
        if position >= 0 and typed < len(lines):
            consumed = position + len(prompt)
            os.write(fd, (lines[typed] + "\r").encode())
            typed += 1
        done, code = os.waitpid(pid, os.WNOHANG)
        if done != 0:
            status = os.waitstatus_to_exitcode(code)
            break
    if status is None:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    try:
        while True:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                break
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            seen += chunk
    except OSError:
        pass
    sys.stdout.write(seen.decode("utf8", "replace"))
    sys.stdout.write(f"\nexit={'timeout' if status is None else status}\n")

main()
