"""Packaging for transformer_components: every field comes from settings.ini, as in nbdev projects."""
from configparser import ConfigParser
from pathlib import Path

import setuptools

here = Path(__file__).parent
config = ConfigParser(delimiters=["="])
config.read(here / "settings.ini", encoding="utf-8")
cfg = config["DEFAULT"]

licenses = {"apache2": ("Apache Software License 2.0", "OSI Approved :: Apache Software License")}
statuses = ["Planning", "Pre-Alpha", "Alpha", "Beta", "Production/Stable", "Mature", "Inactive"]
py_versions = ["3.10", "3.11", "3.12", "3.13"]
min_python = cfg["min_python"]
license_name, license_classifier = licenses[cfg["license"]]

requirements = cfg.get("requirements", "").split()
# every `NAME_requirements` key is an extra: dev (development and tests), zh (jieba's dictionary), hf (datasets)
extras = {key.removesuffix("_requirements"): cfg[key].split() for key in cfg if key.endswith("_requirements")}
console_scripts = [line.strip() for line in cfg.get("console_scripts", "").splitlines() if line.strip()]
readme = here / "README.md"

setuptools.setup(
    name=cfg["lib_name"],
    version=cfg["version"],
    description=cfg["description"],
    long_description=readme.read_text(encoding="utf-8") if readme.exists() else cfg["description"],
    long_description_content_type="text/markdown",
    author=cfg["author"],
    author_email=cfg["author_email"],
    license=license_name,
    url=cfg["git_url"],
    keywords=cfg["keywords"].split(),
    classifiers=[
        f"Development Status :: {int(cfg['status'])} - {statuses[int(cfg['status']) - 1]}",
        f"Intended Audience :: {cfg['audience'].title()}",
        f"License :: {license_classifier}",
        f"Natural Language :: {cfg['language'].title()}",
    ]
    + [f"Programming Language :: Python :: {v}" for v in py_versions[py_versions.index(min_python):]],
    packages=setuptools.find_packages(include=[cfg["lib_path"], f"{cfg['lib_path']}.*"]),
    include_package_data=True,
    python_requires=f">={min_python}",
    install_requires=requirements,
    extras_require=extras,
    entry_points={
        "console_scripts": console_scripts,
        "nbdev": [f"{cfg['lib_path']}={cfg['lib_path']}._modidx:d"],
    },
    zip_safe=False,
)
