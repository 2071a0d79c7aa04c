"""Classify a file by language or by the kind of config/lockfile it is."""

from __future__ import annotations

from pathlib import PurePosixPath

EXTENSIONS = {
    ".py": "python", ".pyi": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".go": "go", ".java": "java", ".kt": "kotlin", ".kts": "kotlin",
    ".rb": "ruby", ".php": "php", ".cs": "csharp", ".swift": "swift",
    ".m": "objective-c", ".mm": "objective-c", ".h": "c", ".c": "c", ".cc": "cpp", ".cpp": "cpp",
    ".rs": "rust", ".sh": "bash", ".bash": "bash",
    ".tf": "terraform", ".yaml": "yaml", ".yml": "yaml", ".json": "json", ".toml": "toml",
    ".xml": "xml", ".plist": "plist", ".entitlements": "entitlements", ".html": "html",
    ".env": "dotenv", ".ini": "ini", ".cfg": "ini", ".properties": "properties",
    ".pem": "pem", ".key": "pem", ".txt": "text", ".md": "markdown", ".lock": "lock",
}

LOCKFILES = {
    "go.sum", "go.mod", "package-lock.json", "npm-shrinkwrap.json", "yarn.lock",
    "pnpm-lock.yaml", "Cargo.lock", "poetry.lock", "uv.lock", "Pipfile.lock",
    "Gemfile.lock", "composer.lock", "Package.resolved",
}

BINARY_EXTENSIONS = frozenset(
    [".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".webp", ".tiff", ".pdf", ".zip", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar", ".jar", ".war", ".class", ".so", ".dll", ".dylib", ".exe", ".o", ".a", ".pyc", ".pyo", ".whl", ".egg", ".woff", ".woff2", ".ttf", ".otf", ".eot", ".mp3", ".mp4", ".mov", ".avi", ".wav", ".flac", ".ogg", ".psd", ".sqlite", ".db", ".bin", ".dat", ".iso", ".dmg", ".car", ".nib"]
)


def classify(rel_path: str) -> str:
    """Return the language/kind of a repo-relative POSIX path ('' if unknown)."""
    p = PurePosixPath(rel_path)
    name = p.name
    if name in LOCKFILES or _is_requirements(name):
        return "lockfile"
    if name == "Dockerfile" or name.startswith("Dockerfile.") or name.endswith(".dockerfile"):
        return "dockerfile"
    if name.startswith(".env"):
        return "dotenv"
    if name == ".gitlab-ci.yml":
        return "gitlab-ci"
    suffix = p.suffix.lower()
    lang = EXTENSIONS.get(suffix, "")
    if lang == "yaml" and "/.github/workflows/" in f"/{rel_path}":
        return "github-actions"
    return lang


def _is_requirements(name: str) -> bool:
    return name.startswith("requirements") and name.endswith(".txt")
