/** Style sheets are bundled by vite; importing one yields nothing to TypeScript. */
declare module "*.css";
