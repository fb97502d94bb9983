"""Container entrypoint of the citecheck GitHub Action: a thin shim into `citecheck.github.action`."""

from citecheck.process import exit_process, start_process

if __name__ == "__main__":
    start_process()
    from citecheck.github.action import main

    exit_process(main())
