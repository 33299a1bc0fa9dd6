import * as encoding from "lib0/encoding";

/** A frame as a Hocuspocus server writes it: the room's name, then the message (`bytes`). */
export function roomFrame(room: string, bytes: number[]): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarString(encoder, room);
  for (const b of bytes) encoding.writeUint8(encoder, b);
  return encoding.toUint8Array(encoder);
}
