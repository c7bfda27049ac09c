"""A focused Tk text field for the typing test: prints its text once it ends with " END", then exits
(or after 120 s). Prints "ready" when it has the keyboard focus."""

import sys
import tkinter

root = tkinter.Tk()
entry = tkinter.Entry(root, width=80)
entry.pack()
state = {"ready": False}


def poll() -> None:
    if not state["ready"] and root.focus_get() is entry:
        state["ready"] = True
        print("ready", flush=True)
    text = entry.get()
    if text.endswith(" END"):
        print(text[: -len(" END")], flush=True)
        root.destroy()
        return
    root.after(50, poll)


root.after(100, lambda: (entry.focus_force(), poll()))
root.after(120000, root.destroy)
root.mainloop()
sys.exit(0)
