/** glibc's malloc_trim(0): true when memory was given back to the system (always false where `supported` is false). */
export declare function trim(): boolean;
/** Whether this build calls glibc's malloc_trim (false on other C libraries: trim() then does nothing). */
export declare const supported: boolean;
