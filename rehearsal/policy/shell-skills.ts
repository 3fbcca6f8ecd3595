// What the stand-in policy knows of the shell: for the shapes of the terminal environment's default tasks
// (environments/terminal/tasks.jsonl), read from the instruction's words, the bash command line that does the task.
// Fixed knowledge, as a model's is; what the stand-in learns is whether to run it (agent-approach.ts). Text only.

/** A shell word single-quoted for bash. */
function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A literal for a sed pattern or replacement between slashes. */
function sedLiteral(text: string): string {
  return text.replace(/[\\/.*^$[\]&]/g, "\\$&");
}

const SKILLS: Array<{ pattern: RegExp; command: (match: RegExpExecArray) => string }> = [
  { pattern: /^Create a file (\S+) containing the single line '([^']*)'\./, command: ([, file, line]) => `printf '%s\\n' ${quote(line!)} > ${quote(file!)}` },
  { pattern: /^Count the lines of (\S+) and write the number \(digits only\) to (\S+)\./, command: ([, source, target]) => `wc -l < ${quote(source!)} > ${quote(target!)}` },
  {
    pattern: /^Create the folders (\S+) and (\S+), and an empty file (\S+)\./,
    command: ([, first, second, file]) => `mkdir -p ${quote(first!)} ${quote(second!)} && touch ${quote(file!)}`,
  },
  {
    pattern: /^Rename every \.(\w+) file in this folder to the same name ending in \.(\w+) instead\./,
    command: ([, from, to]) => `for f in *.${from}; do mv -- "$f" "\${f%.${from}}.${to}"; done`,
  },
  {
    pattern: /^(\S+) has a header line and a column named (\w+)\. Write the sum of the \w+ column \(an integer\) to (\S+)\./,
    command: ([, file, column, target]) =>
      `awk -F, -v c=${quote(column!)} 'NR==1{for(i=1;i<=NF;i++) if($i==c) k=i; next} {s+=$k} END{print s}' ${quote(file!)} > ${quote(target!)}`,
  },
  {
    pattern: /^One of the files in the (\S+) folder contains the word (\w+)\. Write that file's name \(not its path\) to (\S+)\./,
    command: ([, folder, word, target]) => `grep -l ${quote(word!)} ${quote(folder!)}/* | xargs -n1 basename > ${quote(target!)}`,
  },
  {
    pattern: /^(\S+) has one word per line, some repeated\. Write the distinct words, sorted alphabetically, one per line, to (\S+)\./,
    command: ([, source, target]) => `sort -u ${quote(source!)} > ${quote(target!)}`,
  },
  {
    pattern: /^Write a shell script (\S+) that prints the word (\w+), and make it executable\./,
    command: ([, file, word]) => `printf '#!/bin/sh\\necho %s\\n' ${quote(word!)} > ${quote(file!)} && chmod +x ${quote(file!)}`,
  },
  {
    pattern: /^In (\S+), change the line (\S+) to (\S+), leaving every other line as it is\./,
    command: ([, file, from, to]) => `sed -i ${quote(`s/^${sedLiteral(from!)}$/${sedLiteral(to!)}/`)} ${quote(file!)}`,
  },
  {
    pattern: /^Write the name of the largest file in the (\S+) folder \(by size in bytes\) to (\S+)\./,
    command: ([, folder, target]) => `ls -S ${quote(folder!)} | head -n 1 > ${quote(target!)}`,
  },
  {
    pattern: /^(\S+) describes [^.]+\. Write the value of its (\w+) field \([^)]*\) to (\S+)\./,
    command: ([, file, field, target]) => `python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' ${quote(file!)} ${quote(field!)} > ${quote(target!)}`,
  },
  {
    pattern: /^Delete every file ending in \.(\w+) in this folder and its subfolders; keep every other file\./,
    command: ([, extension]) => `find . -type f -name ${quote(`*.${extension}`)} -delete`,
  },
];

/** The command line that does the task an instruction asks for, or null when the stand-in does not know its shape. */
export function shellCommandFor(instruction: string): string | null {
  for (const skill of SKILLS) {
    const match = skill.pattern.exec(instruction.trim());
    if (match) return skill.command(match);
  }
  return null;
}
