"""Runs AOSP's parse_systrace.py on many (options, file) jobs in one Python process.

Used only by the differential test (src/core/systrace/differential.test.ts) when
AOSP_PARSE_SYSTRACE points at a copy of parse_systrace.py kept OUTSIDE this repository; this
file holds none of AOSP's code. Starting one Python per run costs more than the run itself, so
each job executes the unchanged script with runpy, as `python3 parse_systrace.py [opts] FILE`
would: same sys.argv, stdout and stderr captured as the bytes a terminal would get (the
interpreter's own stdout encoding), exit status 0, the argparse status, or 1 with the traceback
on stderr when the script raises.

Usage: python3 aosp-systrace-batch.py PARSE_SYSTRACE_PY JOBS_JSONL RESULTS_JSONL
  a job:    {"id": "...", "args": ["--json", "/tmp/x/cap-1.txt"]}
  a result: {"id": "...", "status": 0, "stdout": base64, "stderr": base64, "exception": "..."}
"""
import base64
import io
import json
import os
import runpy
import sys
import traceback


def run_one(script, args):
    out_bytes = io.BytesIO()
    err_bytes = io.BytesIO()
    enc = sys.__stdout__.encoding
    out = io.TextIOWrapper(out_bytes, encoding=enc, errors=sys.__stdout__.errors, write_through=True)
    err = io.TextIOWrapper(err_bytes, encoding=sys.__stderr__.encoding, errors=sys.__stderr__.errors, write_through=True)
    saved = (sys.argv, sys.stdout, sys.stderr)
    sys.argv = [script] + list(args)
    sys.stdout, sys.stderr = out, err
    status = 0
    exception = None
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        code = e.code
        status = code if isinstance(code, int) else (0 if code is None else 1)
        if code is not None and not isinstance(code, int):
            print(code, file=err)
    except BaseException as e:  # what the interpreter does with an uncaught exception
        traceback.print_exc(file=err)
        status = 1
        exception = "".join(traceback.format_exception_only(type(e), e)).strip()
    finally:
        out.flush()
        err.flush()
        sys.argv, sys.stdout, sys.stderr = saved
    return status, out_bytes.getvalue(), err_bytes.getvalue(), exception


def main():
    script, jobs_path, results_path = sys.argv[1:4]
    script = os.path.abspath(script)
    sys.path.insert(0, os.path.dirname(script))
    with open(jobs_path) as jobs, open(results_path, "w") as results:
        for line in jobs:
            if not line.strip():
                continue
            job = json.loads(line)
            status, out, err, exception = run_one(script, job["args"])
            results.write(json.dumps({
                "id": job["id"],
                "status": status,
                "stdout": base64.b64encode(out).decode("ascii"),
                "stderr": base64.b64encode(err).decode("ascii"),
                "exception": exception,
            }) + "\n")


if __name__ == "__main__":
    main()
