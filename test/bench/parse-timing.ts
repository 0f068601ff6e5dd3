/**
 * The typed parser's timing in a process of its own (the estate, its names and the parser: about an agent's heap),
 * not in the bench process, whose heap holds every other figure's estates and rows and whose collections would
 * show as the parser's p99. Prints the ParseTiming as JSON on stdout; argv[2] is the seed.
 */
import { generateArgoEstate, generateNetBoxEstate } from '@flotilla/simulators';
import { estatesOf } from './answer-questions.js';
import { estateEpoch } from './answers.js';
import { timeParse } from './typed-answers.js';

const seed = Number(process.argv[2] ?? '31');
process.stdout.write(`${JSON.stringify(timeParse(estatesOf(generateArgoEstate(), generateNetBoxEstate(), estateEpoch()), seed))}\n`);
