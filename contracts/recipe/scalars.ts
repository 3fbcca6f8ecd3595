// Number shapes that recipe sections share (counts, ports). Ignores what any one key means.
import { z } from "zod";

export const positiveInt = z.number().int().positive();
export const port = z.number().int().min(1).max(65535);
