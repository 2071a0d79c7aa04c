"""A fake `xcodebuild`, `xcrun` and `ditto` for the Apple tool tests: each replays a
fixture from tests/tools/apple/fixtures and appends its argv to $FAKE_APPLE_DIR/calls.jsonl.

What to replay comes from $FAKE_APPLE_DIR/scenario.json: {"xcodebuild": "fixture.log",
"xcodebuild_exit": 65, "booted": "UDID"...}."""

import json
import os
import signal
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent / "fixtures"
STATE = Path(os.environ["FAKE_APPLE_DIR"])
# a real 2x3 PNG, and one whose header checksum is wrong (scenario screenshot="broken")
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000002000000030806000000b9eade810000001649444154789c63fccfc0f09f8181818189010ae00c00313b0204ef1e83910000000049454e44ae426082")
BROKEN_PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000020000000308060000009d74b63b0000000d4944415478da63f8cfc0f01f0005000201a5e1b6a30000000049454e44ae426082")


def scenario() -> dict:
    path = STATE / "scenario.json"
    return json.loads(path.read_text()) if path.exists() else {}


def fixture(name: str) -> str:
    return (HERE / name).read_text()


def xcodebuild(args: list[str]) -> int:
    s = scenario()
    if "-list" in args:
        print(fixture("xcodebuild_list.json"))
        return 0
    if "-exportArchive" in args:
        out = Path(args[args.index("-exportPath") + 1])
        (out / "MyApp.app").mkdir(parents=True, exist_ok=True)
        print("** EXPORT SUCCEEDED **")
        return 0
    sys.stdout.write(fixture(s.get("xcodebuild", "build_succeeded_warnings_xcode16.log")))
    if "-resultBundlePath" in args:
        Path(args[args.index("-resultBundlePath") + 1]).mkdir(parents=True, exist_ok=True)
    return int(s.get("xcodebuild_exit", 0))


def simctl(args: list[str]) -> int:
    s = scenario()
    cmd = args[0]
    if cmd == "list":
        data = json.loads(fixture("simctl_list.json"))
        for devices in data["devices"].values():
            for d in devices:
                if d["udid"] in s.get("booted", []):
                    d["state"] = "Booted"
        print(json.dumps(data, indent=2))
        return 0
    if cmd == "boot" and args[1] in s.get("booted", []):
        print("An error was encountered processing the command (domain=com.apple.CoreSimulator.SimError, code=405):\n"
              "Unable to boot device in current state: Booted", file=sys.stderr)
        return 149
    if cmd in ("boot", "shutdown", "install"):
        return 0
    if cmd == "launch":
        print(f"{args[2]}: 4242")
        return 0
    if cmd == "io" and args[2] == "screenshot":
        Path(args[3]).write_bytes(BROKEN_PNG if scenario().get("screenshot") == "broken" else PNG)
        print("Detected file type 'PNG' from extension")
        print(f"Wrote screenshot to: {args[3]}", file=sys.stderr)
        return 0
    if cmd == "io" and args[2] == "recordVideo":
        stop = []
        signal.signal(signal.SIGINT, lambda *_: stop.append(1))
        print("Recording started", file=sys.stderr, flush=True)
        while not stop:
            time.sleep(0.05)
        Path(args[-1]).write_bytes(b"\x00\x00\x00\x18ftypmp42fake-video")
        return 0
    if cmd == "spawn" and args[2:4] == ["log", "show"]:
        sys.stdout.write(fixture("sim_log.txt"))
        return 0
    print(f"fake simctl: unknown {args}", file=sys.stderr)
    return 2


def xcrun(args: list[str]) -> int:
    tool = args[0]
    if tool == "simctl":
        return simctl(args[1:])
    if tool == "xcresulttool":
        s = scenario()
        if args[2:4] == ["test-results", "summary"] and not s.get("legacy_xcresult"):
            print(fixture("xcresult_summary.json"))
            return 0
        if args[2:4] == ["test-results", "tests"] and not s.get("legacy_xcresult"):
            print(fixture("xcresult_tests.json"))
            return 0
        if args[2:4] == ["object", "--legacy"]:
            print(fixture("xcresult_legacy.json"))
            return 0
        print("Error: Unknown option", file=sys.stderr)
        return 64
    if tool == "notarytool":
        print(json.dumps({"id": "2efe2717-52ef-43a5-96dc-0797e4ca1041", "status": scenario().get("notary", "Accepted"),
                          "message": "Processing complete"}))
        return 0
    if tool == "stapler":
        print(f"Processing: {args[-1]}\nThe staple and validate action worked!")
        return 0
    if tool == "swift-demangle":
        names = {"$s4main3FooV": "main.Foo", "$s5MyApp9AnalyticsC5track5eventySS_tF": "MyApp.Analytics.track(event: Swift.String) -> ()"}
        for sym in args[1:]:
            if not sym.startswith("-"):
                print(names.get(sym, sym))
        return 0
    if tool == "strings":
        print("NSAllowsArbitraryLoads\nhttps://api.example.com")
        return 0
    if tool == "xctrace":
        print("== Standard Templates ==\nActivity Monitor\nAllocations\nLeaks\nTime Profiler")
        return 0
    print(f"xcrun: error: unable to find utility \"{tool}\", not a developer tool or in PATH", file=sys.stderr)
    return 72


def ditto(args: list[str]) -> int:
    Path(args[-1]).write_bytes(b"PK\x05\x06" + b"\x00" * 18)
    return 0


def main(name: str) -> int:
    with (STATE / "calls.jsonl").open("a") as fh:
        fh.write(json.dumps([name, *sys.argv[1:]]) + "\n")
    return {"xcodebuild": xcodebuild, "xcrun": xcrun, "ditto": ditto}[name](sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[0]).name))
