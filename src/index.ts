// Public library API of AEB. Everything a script needs is re-exported from here.
export {};
