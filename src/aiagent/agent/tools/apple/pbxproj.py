"""What a ``project.pbxproj`` says: targets, build configurations, platforms and SDKs,
build phases, target dependencies and Swift package references.

The file is read with :mod:`aiagent.agent.tools.apple.asciiplist` (strict, never evaluated) and
then walked by object id. A reference to an object that is not there is reported as a
problem, never an exception.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aiagent.agent.tools.apple.asciiplist import PlistError, loads

#: SDKROOT / SUPPORTED_PLATFORMS names -> the platform people call it.
PLATFORMS = {
    "iphoneos": "iOS", "iphonesimulator": "iOS Simulator", "macosx": "macOS",
    "appletvos": "tvOS", "appletvsimulator": "tvOS Simulator", "watchos": "watchOS",
    "watchsimulator": "watchOS Simulator", "xros": "visionOS", "xrsimulator": "visionOS Simulator",
    "driverkit": "DriverKit",
}
DEPLOYMENT_KEYS = {
    "IPHONEOS_DEPLOYMENT_TARGET": "iOS", "MACOSX_DEPLOYMENT_TARGET": "macOS",
    "TVOS_DEPLOYMENT_TARGET": "tvOS", "WATCHOS_DEPLOYMENT_TARGET": "watchOS",
    "XROS_DEPLOYMENT_TARGET": "visionOS",
}
KEPT_SETTINGS = (
    "PRODUCT_BUNDLE_IDENTIFIER", "INFOPLIST_FILE", "CODE_SIGN_ENTITLEMENTS", "CODE_SIGN_STYLE",
    "CODE_SIGN_IDENTITY", "DEVELOPMENT_TEAM", "PROVISIONING_PROFILE_SPECIFIER", "SWIFT_VERSION",
    "TARGETED_DEVICE_FAMILY", "SDKROOT", "SUPPORTED_PLATFORMS", "TEST_HOST", "ASSETCATALOG_COMPILER_APPICON_NAME",
    *DEPLOYMENT_KEYS,
)
PHASES = {
    "PBXSourcesBuildPhase": "sources", "PBXFrameworksBuildPhase": "frameworks",
    "PBXResourcesBuildPhase": "resources", "PBXHeadersBuildPhase": "headers",
    "PBXShellScriptBuildPhase": "run script", "PBXCopyFilesBuildPhase": "copy files",
    "PBXRezBuildPhase": "rez",
}


class ProjectError(ValueError):
    """The project file cannot be read; the message names the file."""


def read_project(pbxproj: Path) -> dict[str, Any]:
    """The summary of ``pbxproj`` (a ``project.pbxproj`` file)."""
    from aiagent.agent.tools.apple.asciiplist import MAX_BYTES

    try:
        if pbxproj.stat().st_size > MAX_BYTES:
            raise ProjectError(f"{pbxproj}: larger than {MAX_BYTES // (1024 * 1024)} MB; not read")
        text = pbxproj.read_bytes().decode("utf-8")
    except UnicodeDecodeError as err:
        raise ProjectError(f"{pbxproj}: not UTF-8 text (byte {err.start})") from None
    except OSError as err:
        raise ProjectError(f"{pbxproj}: cannot read: {err.strerror or err}") from None
    try:
        root = loads(text)
    except PlistError as err:
        raise ProjectError(f"{pbxproj}: not a valid project file: {err}") from None
    return summarize(root, pbxproj)


def summarize(root: Any, where: Path) -> dict[str, Any]:
    objects = root.get("objects") if isinstance(root, dict) else None
    if not isinstance(objects, dict) or not isinstance(root.get("rootObject"), str):
        raise ProjectError(f"{where}: not a project file (no objects / rootObject)")
    graph = _Graph(objects)
    project = graph.obj(root["rootObject"], "PBXProject")
    if project is None:
        raise ProjectError(f"{where}: rootObject {root['rootObject']} is not a PBXProject")
    base = graph.configurations(project.get("buildConfigurationList"))
    targets = [graph.target(t, base) for t in graph.ids(project.get("targets"))]
    return {
        "path": str(where.parent),
        "object_version": root.get("objectVersion"),
        "configurations": sorted({c["name"] for c in base}),
        "default_configuration": graph.default_configuration(project.get("buildConfigurationList")),
        "targets": [t for t in targets if t is not None],
        "packages": [p for p in map(graph.package, graph.ids(project.get("packageReferences"))) if p],
        "problems": graph.problems,
    }


class _Graph:
    def __init__(self, objects: dict[str, Any]) -> None:
        self.objects = objects
        self.problems: list[str] = []

    def obj(self, ref: Any, *isa: str) -> dict[str, Any] | None:
        found = self.objects.get(ref) if isinstance(ref, str) else None
        if not isinstance(found, dict):
            self.problems.append(f"object {ref} is referenced but not defined")
            return None
        if isa and found.get("isa") not in isa:
            self.problems.append(f"object {ref} is a {found.get('isa')}, expected {'/'.join(isa)}")
            return None
        return found

    @staticmethod
    def ids(value: Any) -> list[str]:
        return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []

    def configurations(self, ref: Any) -> list[dict[str, Any]]:
        listing = self.obj(ref, "XCConfigurationList") if ref else None
        out = []
        for cid in self.ids(listing.get("buildConfigurations") if listing else None):
            conf = self.obj(cid, "XCBuildConfiguration")
            if conf is not None:
                settings = conf.get("buildSettings")
                out.append({"name": str(conf.get("name", "")),
                            "settings": settings if isinstance(settings, dict) else {}})
        return out

    def default_configuration(self, ref: Any) -> str | None:
        listing = self.objects.get(ref) if isinstance(ref, str) else None
        value = listing.get("defaultConfigurationName") if isinstance(listing, dict) else None
        return value if isinstance(value, str) else None

    def target(self, ref: str, base: list[dict[str, Any]]) -> dict[str, Any] | None:
        target = self.obj(ref, "PBXNativeTarget", "PBXAggregateTarget", "PBXLegacyTarget")
        if target is None:
            return None
        configs = self.configurations(target.get("buildConfigurationList"))
        merged = [_merge(base, c) for c in configs]
        return {
            "name": target.get("name"),
            "id": ref,
            "kind": target.get("isa"),
            "product_type": str(target.get("productType", "")).removeprefix("com.apple.product-type.") or None,
            "platforms": _platforms(merged),
            "deployment_targets": _deployment(merged),
            "configurations": {c["name"]: _kept(c["settings"]) for c in merged},
            "build_phases": [p for p in map(self.phase, self.ids(target.get("buildPhases"))) if p],
            "dependencies": [d for d in map(self.dependency, self.ids(target.get("dependencies"))) if d],
            "package_products": [p for p in map(self.product, self.ids(target.get("packageProductDependencies"))) if p],
        }

    def phase(self, ref: str) -> dict[str, Any] | None:
        phase = self.obj(ref)
        if phase is None:
            return None
        out: dict[str, Any] = {"kind": PHASES.get(str(phase.get("isa")), str(phase.get("isa"))),
                               "files": len(self.ids(phase.get("files")))}
        if phase.get("name"):
            out["name"] = phase["name"]
        if phase.get("isa") == "PBXShellScriptBuildPhase":
            out["script"] = str(phase.get("shellScript", ""))[:500]
        return out

    def dependency(self, ref: str) -> str | None:
        dep = self.obj(ref, "PBXTargetDependency")
        if dep is None:
            return None
        target = self.objects.get(dep.get("target") or "")
        if isinstance(target, dict):
            return str(target.get("name"))
        product = self.objects.get(dep.get("productRef") or "")
        if isinstance(product, dict):
            return f"package product {product.get('productName')}"
        return str(dep.get("name") or dep.get("target") or "?")

    def product(self, ref: str) -> str | None:
        product = self.obj(ref, "XCSwiftPackageProductDependency")
        return str(product.get("productName")) if product else None

    def package(self, ref: str) -> dict[str, Any] | None:
        pkg = self.obj(ref, "XCRemoteSwiftPackageReference", "XCLocalSwiftPackageReference")
        if pkg is None:
            return None
        if pkg.get("isa") == "XCLocalSwiftPackageReference":
            return {"local_path": pkg.get("relativePath")}
        requirement = pkg.get("requirement")
        return {"url": pkg.get("repositoryURL"),
                "requirement": requirement if isinstance(requirement, dict) else None}


def _merge(base: list[dict[str, Any]], conf: dict[str, Any]) -> dict[str, Any]:
    inherited: dict[str, Any] = next((b["settings"] for b in base if b["name"] == conf["name"]), {})
    return {"name": conf["name"], "settings": {**inherited, **conf["settings"]}}


def _kept(settings: dict[str, Any]) -> dict[str, Any]:
    return {k: settings[k] for k in KEPT_SETTINGS if k in settings}


def _platforms(configs: list[dict[str, Any]]) -> list[str]:
    found: set[str] = set()
    for conf in configs:
        settings = conf["settings"]
        names = str(settings.get("SUPPORTED_PLATFORMS") or settings.get("SDKROOT") or "").split()
        found.update(PLATFORMS.get(n, n) for n in names if n)
        if settings.get("SUPPORTS_MACCATALYST") == "YES":
            found.add("Mac Catalyst")
    return sorted(found)


def _deployment(configs: list[dict[str, Any]]) -> dict[str, str]:
    out: dict[str, str] = {}
    for conf in configs:
        for key, platform in DEPLOYMENT_KEYS.items():
            if isinstance(conf["settings"].get(key), str):
                out.setdefault(platform, conf["settings"][key])
    return out
