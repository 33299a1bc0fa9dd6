/** Imported first by every startup page: the time at which module evaluation began. */
export const evaluationStart: number = performance.now();
