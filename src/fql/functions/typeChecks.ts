// typeChecks functions of FQL v4 (fql-v4.md §3). Registered with define() at module load.

export {};
