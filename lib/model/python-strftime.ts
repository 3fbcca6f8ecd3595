// Python's datetime.strftime for a naive local time in the C locale (glibc's directives and its -, _, 0 and ^
// flags), for transformers' strftime_now global. Ignores widths, the E/O modifiers and every locale but C.
const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const DIRECTIVE = /%([-_0^]?)(.)/gs;

/** `date.strftime(format)` as Python prints it for datetime.now() (naive: %z and %Z are empty). */
export function strftimePython(date: Date, format: string): string {
  return format.replace(DIRECTIVE, (whole, flag: string, conversion: string) => {
    const field = fields(date, conversion);
    if (field === undefined) return whole; // glibc prints a directive it does not know as written
    let [text, pad] = field;
    if (pad !== "") {
      const digits = text.replace(/^[ 0]+(?=.)/, "");
      if (flag === "-") text = digits;
      else if (flag === "_") text = digits.padStart(text.length, " ");
      else if (flag === "0") text = digits.padStart(text.length, "0");
    }
    return flag === "^" ? text.toUpperCase() : text;
  });
}

/** The text of one conversion and its padding character ("" for text that is not a padded number). */
function fields(date: Date, conversion: string): [string, string] | undefined {
  const number = (value: number, width: number, pad = "0"): [string, string] => [String(value).padStart(width, pad), pad];
  const text = (value: string): [string, string] => [value, ""];
  const hour12 = date.getHours() % 12 || 12;
  switch (conversion) {
    case "a": return text(DAYS[date.getDay()]!.slice(0, 3));
    case "A": return text(DAYS[date.getDay()]!);
    case "b":
    case "h": return text(MONTHS[date.getMonth()]!.slice(0, 3));
    case "B": return text(MONTHS[date.getMonth()]!);
    case "c": return text(strftimePython(date, "%a %b %e %H:%M:%S %Y"));
    case "C": return number(Math.floor(date.getFullYear() / 100), 2);
    case "d": return number(date.getDate(), 2);
    case "D":
    case "x": return text(strftimePython(date, "%m/%d/%y"));
    case "e": return number(date.getDate(), 2, " ");
    case "f": return number(date.getMilliseconds() * 1000, 6);
    case "F": return text(strftimePython(date, "%Y-%m-%d"));
    case "G": return number(isoWeek(date).year, 4);
    case "g": return number(isoWeek(date).year % 100, 2);
    case "H": return number(date.getHours(), 2);
    case "I": return number(hour12, 2);
    case "j": return number(dayOfYear(date) + 1, 3);
    case "k": return number(date.getHours(), 2, " ");
    case "l": return number(hour12, 2, " ");
    case "m": return number(date.getMonth() + 1, 2);
    case "M": return number(date.getMinutes(), 2);
    case "n": return text("\n");
    case "p": return text(date.getHours() < 12 ? "AM" : "PM");
    case "P": return text(date.getHours() < 12 ? "am" : "pm");
    case "r": return text(strftimePython(date, "%I:%M:%S %p"));
    case "R": return text(strftimePython(date, "%H:%M"));
    case "s": return text(String(Math.floor(date.getTime() / 1000)));
    case "S": return number(date.getSeconds(), 2);
    case "t": return text("\t");
    case "T":
    case "X": return text(strftimePython(date, "%H:%M:%S"));
    case "u": return number(date.getDay() || 7, 1);
    case "U": return number(Math.floor((dayOfYear(date) + 7 - date.getDay()) / 7), 2);
    case "V": return number(isoWeek(date).week, 2);
    case "w": return number(date.getDay(), 1);
    case "W": return number(Math.floor((dayOfYear(date) + 7 - ((date.getDay() + 6) % 7)) / 7), 2);
    case "y": return number(date.getFullYear() % 100, 2);
    case "Y": return number(date.getFullYear(), 1);
    case "z":
    case "Z": return text("");
    case "%": return text("%");
    default: return undefined;
  }
}

/** Days since 1 January of the date's year (0-based), by the calendar date, whatever the clock changes. */
function dayOfYear(date: Date): number {
  return Math.round((Date.UTC(date.getFullYear(), date.getMonth(), date.getDate()) - Date.UTC(date.getFullYear(), 0, 1)) / 86_400_000);
}

/** ISO 8601 week-based year and week: those of the Thursday in the date's Monday-to-Sunday week. */
function isoWeek(date: Date): { year: number; week: number } {
  const thursday = new Date(Date.UTC(date.getFullYear(), date.getMonth(), date.getDate() + 3 - ((date.getDay() + 6) % 7)));
  const year = thursday.getUTCFullYear();
  return { year, week: Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / 604_800_000) + 1 };
}
