// Registers the route trace's module hooks (after tsx's, so they see compiled JavaScript).
import { register } from "node:module";

register("./hooks.mjs", import.meta.url);
