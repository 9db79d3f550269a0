#!/usr/bin/env python3
"""Every command the project's scripts call comes from a package that scripts/setup
installs (or that a minimal Debian 12 root already has).

Finds the commands the shell scripts (scripts/, tests/**/*.sh, .ci/) and the node
scripts (tests/, web/*.mjs) call, asks dpkg which package owns each one on this
machine, and fails for each command whose package is neither of Priority required /
Essential (what `debootstrap --variant=minbase` installs, plus apt) nor in the
dependency closure of scripts/setup's package list. Tools a command runs behind the
scenes are listed in IMPLIED (tar unpacking .xz runs xz; npm over https needs the CA
certificates). Prints one line per command and ends with
"setup-packages: N commands checked, M not installed by scripts/setup".
  tests/setup/check-packages.py
"""
import glob
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
os.chdir(ROOT)

SHELL_FILES = sorted(set(glob.glob('scripts/*') + glob.glob('.ci/*') + glob.glob('tests/**/*.sh', recursive=True)))
NODE_FILES = sorted(glob.glob('tests/**/*.mjs', recursive=True) + glob.glob('web/*.mjs'))

# Shell words that are not commands found on PATH (builtins, keywords, the scripts' own functions).
BUILTINS = set('''. : [ [[ ]] alias bg break builtin caller cd command compgen complete continue declare
dirs disown echo enable eval exec exit export false fc fg getopts hash help history jobs kill let
local logout mapfile popd printf pushd pwd read readarray readonly return set shift shopt source
suspend test times trap true type typeset ulimit umask unalias unset wait case esac do done elif
else fi for function if in select then time until while'''.split())

# Commands a command runs itself, which a scan of the call sites cannot see:
# (regex on a script's text, the extra command or package, why).
IMPLIED = [
    (r'\btar\b[^\n]*-x[^\n]*(\.xz|orig\.tar\.\*)', 'command:xz', 'tar unpacks the .tar.xz sources with xz'),
    (r'\bnpm ci\b', 'package:ca-certificates', 'npm ci fetches over https and checks the certificates'),
]

def read(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        return f.read()

def shell_commands(text):
    """Words in command position, line by line (heredoc bodies are skipped)."""
    found = set()
    lines = text.split('\n')
    heredoc = None
    for line in lines:
        if heredoc:
            if line.strip() == heredoc:
                heredoc = None
            continue
        m = re.search(r"<<-?\s*['\"]?(\w+)['\"]?", line)
        if m:
            heredoc = m.group(1)
        code = re.sub(r"(^|\s)#.*$", '', line)          # comments
        code = re.sub(r"'[^']*'", "''", code)           # single-quoted text
        code = re.sub(r"\$\(\([^)]*\)\)", '0', code)        # arithmetic
        # `need <cmd> <pkg>` and `command -v <cmd>` name commands too
        for m in re.finditer(r'\b(?:need|command -v)\s+([\w.+-]+)', code):
            found.add(m.group(1))
        for part in re.split(r'\|\||&&|[|;(){}`]|\$\(|\bthen\b|\bdo\b|\belse\b|!', code):
            words = part.split()
            while words and (re.match(r'^\w+=', words[0]) or words[0] in ('exec', 'env', 'time', 'if', 'while', 'until', 'xargs', 'nice', 'timeout')):
                if words[0] == 'timeout' and len(words) > 1:
                    words = words[1:]
                words = words[1:]
            if words:
                found.add(words[0].strip('"'))
    return found

def node_commands(text):
    found = set()
    for m in re.finditer(r"""\b(?:execFileSync|execFile|spawnSync|spawn|execSync)\(\s*['"]([^'"\s]+)""", text):
        found.add(m.group(1))
    for m in re.finditer(r"""executablePath:\s*['"]([^'"]+)['"]""", text):
        found.add(m.group(1))
    return found

def setup_packages():
    text = read('scripts/setup')
    pkgs = []
    text = re.sub(r'#[^\n]*', '', text)
    for m in re.finditer(r'packages\+?=\(([^)]*)\)', text):
        body = m.group(1)
        pkgs += [w for w in body.split() if re.match(r'^[a-z0-9][a-z0-9.+-]+$', w)]
    return pkgs

def installed_packages():
    """name -> (essential, priority, [[alternatives of one dependency], ...]); provides."""
    out = subprocess.run(['dpkg-query', '-W', '-f=${db:Status-Abbrev}\t${Package}\t${Essential}\t${Priority}'
                          '\t${Pre-Depends}, ${Depends}\t${Provides}\n'], capture_output=True, text=True, check=True).stdout
    pkgs, provides = {}, {}
    for line in out.split('\n'):
        f = line.split('\t')
        if len(f) != 6 or not f[0].startswith('ii'):
            continue
        deps = [[re.sub(r'[\s(:].*', '', alt.strip()) for alt in d.split('|')] for d in f[4].split(',') if d.strip()]
        pkgs[f[1]] = (f[2] == 'yes', f[3], deps)
        for v in f[5].split(','):
            if v.strip():
                provides.setdefault(re.sub(r'[\s(:].*', '', v.strip()), []).append(f[1])
    return pkgs, provides

def closure(listed, pkgs, provides):
    """The packages installing `listed` brings in: their Depends and Pre-Depends, recursively
    (an alternative or a virtual package counts as the installed package that fills it)."""
    seen, todo = set(), list(listed)
    while todo:
        name = todo.pop()
        cands = [name] if name in pkgs else provides.get(name, [])
        for c in cands[:1]:
            if c in seen:
                continue
            seen.add(c)
            for alts in pkgs[c][2]:
                filled = [a for a in alts if a in pkgs or a in provides]
                if filled:
                    todo.append(filled[0])
    return seen

def file_owners(wanted=()):
    """path -> package, from dpkg's file lists (one pass; quicker than dpkg-query -S per
    file): every file in a bin folder, and the `wanted` paths."""
    owners, wanted = {}, set(wanted)
    for lst in glob.glob('/var/lib/dpkg/info/*.list'):
        pkg = os.path.basename(lst)[:-5].split(':')[0]
        for line in read(lst).split('\n'):
            if '/bin/' in line or line in wanted:
                owners.setdefault(line, pkg)
    return owners

# Files the build reads from Debian's folders by their path (fonts, toolchain files,
# headers): found in the CMake files and the build's scripts, `set(NAME /path)`
# variables expanded. A minimal root lacked DejaVuSans-Oblique.ttf (fonts-dejavu-extra)
# while every command was there.
BUILD_FILES = sorted(set(glob.glob('**/CMakeLists.txt', recursive=True) + glob.glob('*.cmake') + glob.glob('cmake/*.cmake')
                         + ['CMakePresets.json'] + glob.glob('native/app/*.py') + glob.glob('scripts/*')))

def build_paths():
    """/usr/... path -> the file that names it."""
    found = {}
    for f in BUILD_FILES:
        if f.startswith(('build/', 'web/node_modules/')) or not os.path.isfile(f):
            continue
        text = read(f)
        variables = dict(re.findall(r'set\((\w+)\s+(/usr/[\w./+-]+)\)', text))
        for name, value in variables.items():
            text = text.replace('${' + name + '}', value)
        for m in re.finditer(r'(/usr/(?:share|lib|include)/[\w./+-]*\w)', text):
            found.setdefault(m.group(1), f)
    return found

def owner(path, owners):
    """The package that ships a file (trying the merged-/usr twin and the symlink's target)."""
    cands = [path, os.path.realpath(path)]
    for p in list(cands):
        if p.startswith(('/usr/bin/', '/usr/sbin/')):
            cands.append(p[4:])
        elif p.startswith(('/bin/', '/sbin/')):
            cands.append('/usr' + p)
    for p in cands:
        if p in owners:
            return owners[p]
    return None

def main():
    calls = {}  # command -> first file that calls it
    for f in SHELL_FILES:
        if os.path.isfile(f):
            for c in shell_commands(read(f)):
                calls.setdefault(c, f)
    for f in NODE_FILES:
        for c in node_commands(read(f)):
            calls.setdefault(c, f)
    needed_pkgs = {}
    for f in SHELL_FILES + NODE_FILES:
        if not os.path.isfile(f):
            continue
        text = read(f)
        for rx, what, why in IMPLIED:
            if re.search(rx, text):
                kind, name = what.split(':')
                if kind == 'command':
                    calls.setdefault(name, f'{f} ({why})')
                else:
                    needed_pkgs.setdefault(name, f'{f} ({why})')

    listed = setup_packages()
    if not listed:
        sys.exit('FAIL no packages=(...) list found in scripts/setup')
    pkgs, provides = installed_packages()
    not_here = [p for p in listed if p not in pkgs]
    if not_here:
        print(f'note: not installed on this machine (run scripts/setup): {" ".join(not_here)}')
    installed = closure(listed, pkgs, provides)
    # What debootstrap --variant=minbase installs: Essential and Priority required, and apt.
    base = {p for p, (ess, prio, _) in pkgs.items() if ess or prio == 'required'} | {'apt'}
    paths = build_paths()
    owners = file_owners(paths)
    counts = {'checked': 0, 'missing': 0}

    def judge(pkg, what, fail):
        """One line for `what` (a command, a file or a package) that comes from `pkg`."""
        counts['checked'] += 1
        if pkg in base:
            print(f'ok   {what}: {pkg} (in a minimal Debian root)')
        elif pkg in installed:
            print(f'ok   {what}: {pkg} (scripts/setup)')
        else:
            counts['missing'] += 1
            print(f'FAIL {fail}')

    for cmd in sorted(calls):
        if cmd in BUILTINS or not re.match(r'^[\w/.+-]+$', cmd) or cmd.startswith(('$', '.', 'build/', 'tests/', 'scripts/', 'web/')):
            continue
        # Debian's own folders first: a developer's PATH may put wrappers (ccache's
        # /usr/lib/ccache) in front, which would name the wrapper's package.
        path = cmd if cmd.startswith('/') else (shutil.which(cmd, path='/usr/sbin:/usr/bin:/sbin:/bin') or shutil.which(cmd))
        if not path:
            continue  # a function of the script, or not a command at all
        pkg = owner(path, owners)
        if pkg is None:
            continue  # not from a Debian package (e.g. a link in this machine's /usr/local)
        judge(pkg, cmd, f'{cmd} (called by {calls[cmd]}) comes from Debian package {pkg}, which scripts/setup does not install')
    for path, where in sorted(paths.items()):
        if not os.path.isfile(path):
            continue  # a folder (or a prefix of a path): its files are what a package ships
        pkg = owner(path, owners)
        if pkg is not None:
            judge(pkg, path, f'{path} (read by {where}) comes from Debian package {pkg}, which scripts/setup does not install')
    for pkg, where in sorted(needed_pkgs.items()):
        judge(pkg, f'package {pkg} (needed by {where})', f'package {pkg} (needed by {where}) is not installed by scripts/setup')
    checked, missing = counts['checked'], counts['missing']
    print(f'setup-packages: {checked} commands and files checked, {missing} not installed by scripts/setup')
    return 1 if missing else 0

if __name__ == '__main__':
    sys.exit(main())
