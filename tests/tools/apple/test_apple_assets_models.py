"""Asset catalogs (FR-6.7) and Core Data / SwiftData models (FR-6.13), on the sample
project and on broken copies of it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from apple_harness import EXAMPLE, copy_example, err, ok_json

from aiagent.agent.tools.apple.assets import generated_symbol


def test_example_catalog() -> None:
    info = ok_json(EXAMPLE, "xcode_assets", {})
    (catalog,) = info["catalogs"]
    assert catalog["path"] == "NotesApp/Assets.xcassets" and catalog["errors"] == []
    assert [i["name"] for i in catalog["images"]] == ["Logo", "UnusedBanner"]
    (icon,) = catalog["app_icons"]
    assert icon == {"name": "AppIcon", "style": "per-size", "idioms": ["ios-marketing", "iphone"],
                    "missing_sizes": ["iphone 60pt@3x"]}
    assert {c["name"]: c["appearances"] for c in catalog["colors"]} == {"AccentColor": ["any"],
                                                                       "BrandColor": ["any", "dark"]}
    # Logo is used by Image("Logo"), BrandColor by Color("BrandColor"), AccentColor always.
    assert info["unused"] == ["NotesApp/Assets.xcassets: UnusedBanner"]


def test_generated_symbols_count_as_references(tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    (root / "NotesApp" / "Banner.swift").write_text("let banner = Image(.unusedBanner)\n")
    assert ok_json(root, "xcode_assets", {})["unused"] == []
    assert generated_symbol("hero-banner") == "heroBanner" and generated_symbol("Icons/App_Logo") == "appLogo"


def test_single_size_icon_and_missing_file(tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    icon = root / "NotesApp/Assets.xcassets/AppIcon.appiconset"
    (icon / "Contents.json").write_text(json.dumps({"images": [
        {"idiom": "universal", "platform": "ios", "size": "1024x1024", "filename": "gone.png"},
        {"idiom": "universal", "platform": "ios", "size": "1024x1024",
         "appearances": [{"appearance": "luminosity", "value": "dark"}]},
    ]}))
    (entry,) = ok_json(root, "xcode_assets", {})["catalogs"][0]["app_icons"]
    assert entry == {"name": "AppIcon", "style": "single-size", "platforms": ["ios"], "missing_files": ["gone.png"]}
    (icon / "Contents.json").write_text(json.dumps({"images": [
        {"idiom": "universal", "platform": "ios", "size": "1024x1024"}]}))
    (entry,) = ok_json(root, "xcode_assets", {})["catalogs"][0]["app_icons"]
    assert entry["missing_sizes"] == ["universal 1024pt@1x"]


@pytest.mark.parametrize("content", ['{"images": [', "not json at all", "[1, 2]"])
def test_broken_contents_json_is_named_and_the_rest_still_read(tmp_path: Path, content: str) -> None:
    root = copy_example(tmp_path)
    (root / "NotesApp/Assets.xcassets/Logo.imageset/Contents.json").write_text(content)
    catalog = ok_json(root, "xcode_assets", {})["catalogs"][0]
    (problem,) = catalog["errors"]
    assert problem.startswith("NotesApp/Assets.xcassets/Logo.imageset/Contents.json: not ")
    assert [i["name"] for i in catalog["images"]] == ["UnusedBanner"]
    assert catalog["app_icons"][0]["missing_sizes"] == ["iphone 60pt@3x"]


def test_no_catalog_is_an_error(tmp_path: Path) -> None:
    assert err(tmp_path, "xcode_assets", {}) == "no .xcassets asset catalog under ."


def test_example_model_versions_and_migration() -> None:
    info = ok_json(EXAMPLE, "xcode_data_model", {})
    (bundle,) = info["core_data"]
    assert bundle["path"] == "NotesApp/Notes.xcdatamodeld" and bundle["errors"] == []
    assert [v["name"] for v in bundle["versions"]] == ["Notes", "Notes 2"]
    assert bundle["current_version"] == "Notes 2"
    v2 = {e["name"]: e for e in bundle["versions"][1]["entities"]}
    assert set(v2) == {"Note", "Folder", "Tag"}
    assert {r["name"]: (r["destination"], r["to_many"]) for r in v2["Note"]["relationships"]} == {
        "folder": ("Folder", False), "tags": ("Tag", True)}
    (migration,) = bundle["migrations"]
    assert (migration["from"], migration["to"]) == ("Notes", "Notes 2")
    assert migration["migration_needed"] and not migration["lightweight"]
    assert "attribute Note.title renamed to heading (renamingIdentifier)" in migration["changes"]
    assert "entity Tag added" in migration["changes"] and "relationship Note.tags added" in migration["changes"]
    assert "attribute Note.wordCount added" in migration["changes"]
    assert "Note.pinned is new, non-optional and has no default value" in migration["explanation"]
    assert "wordCount" not in migration["explanation"]  # optional with a default: inferable


def test_lightweight_when_the_blocker_is_fixed(tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    v2 = root / "NotesApp/Notes.xcdatamodeld/Notes 2.xcdatamodel/contents"
    v2.write_text(v2.read_text().replace('name="pinned" attributeType="Boolean"',
                                         'name="pinned" attributeType="Boolean" defaultValueString="NO"'))
    (migration,) = ok_json(root, "xcode_data_model", {})["core_data"][0]["migrations"]
    assert migration["migration_needed"] and migration["lightweight"]
    assert migration["explanation"].startswith("a migration is needed; lightweight (inferred) migration can do it")


def test_type_change_and_to_one_are_not_lightweight(tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    v2 = root / "NotesApp/Notes.xcdatamodeld/Notes 2.xcdatamodel/contents"
    text = v2.read_text().replace('name="createdAt" optional="YES" attributeType="Date"',
                                  'name="createdAt" optional="YES" attributeType="String"')
    text = text.replace('name="notes" optional="YES" toMany="YES" deletionRule="Cascade"',
                        'name="notes" optional="YES" maxCount="1" deletionRule="Cascade"')
    v2.write_text(text)
    (migration,) = ok_json(root, "xcode_data_model", {})["core_data"][0]["migrations"]
    assert "attribute Note.createdAt type Date -> String" in migration["changes"]
    assert "relationship Folder.notes to-many -> to-one" in migration["changes"]
    assert "cannot convert values" in migration["explanation"] and "to-many to to-one" in migration["explanation"]


@pytest.mark.parametrize(("xml", "expected"), [
    ("<model><entity name='Note'>", "not valid XML"),
    ('<?xml version="1.0"?><!DOCTYPE m [<!ENTITY a "x">]><model>&a;</model>', "refused"),
    ("<notamodel/>", "not a Core Data model"),
])
def test_broken_model_version_is_named_and_the_other_read(tmp_path: Path, xml: str, expected: str) -> None:
    root = copy_example(tmp_path)
    (root / "NotesApp/Notes.xcdatamodeld/Notes 2.xcdatamodel/contents").write_text(xml)
    bundle = ok_json(root, "xcode_data_model", {})["core_data"][0]
    (problem,) = bundle["errors"]
    assert problem.startswith("NotesApp/Notes.xcdatamodeld/Notes 2.xcdatamodel/contents: ") and expected in problem
    assert [v["name"] for v in bundle["versions"]] == ["Notes"] and bundle["migrations"] == []


def test_swiftdata_models(tmp_path: Path) -> None:
    (tmp_path / "Trip.swift").write_text(
        "import SwiftData\n\n@Model\nfinal class Trip {\n    @Attribute(.unique) var name: String\n"
        "    var start: Date\n    @Relationship(deleteRule: .cascade) var stops: [Stop] = []\n"
        "    init(name: String, start: Date) { self.name = name; self.start = start }\n}\n")
    info = ok_json(tmp_path, "xcode_data_model", {})
    (model,) = info["swiftdata"]
    assert model["class"] == "Trip" and model["file"] == "Trip.swift"
    assert [(p["name"], p["type"], p.get("macro")) for p in model["properties"]] == [
        ("name", "String", "@Attribute"), ("start", "Date", None), ("stops", "[Stop]", "@Relationship")]
    assert err(tmp_path / "..", "xcode_data_model", {"path": "nope"}).startswith("path nope: no such")
