// The mock policy's player for gui_coordinate: clicks the expected point, or one in the opposite half
// of the screen on both axes.
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';
import { parseExpected, type GuiCoordinateTask } from '.';

export const guiCoordinateOracle: Oracle<GuiCoordinateTask> = (task, _history, { correct }) => {
  const expected = parseExpected(task.expected_answer) ?? [0.5, 0.5];
  // A wrong click lands in the opposite half of the screen on both axes: always beyond max_dist.
  const [x, y] = correct ? expected : expected.map((v) => (v < 0.5 ? v + 0.5 : v - 0.5));
  const toThousandths = (v: number) => Math.min(1000, Math.max(0, Math.round(v * 1000)));
  return [assistantMessage(`<point>(${toThousandths(x!)}, ${toThousandths(y!)})</point>`)];
};
