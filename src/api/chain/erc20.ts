/** The ERC-20 functions and event keydeck reads or (in the sandbox and the tests) calls, as viem's ABI. */
import { parseAbi } from 'viem';

/** `Transfer`, `transfer`, `balanceOf` and the sandbox USDC's open `mint`. */
export const ERC20_ABI = parseAbi([
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'function transfer(address to, uint256 value) returns (bool)',
  'function balanceOf(address owner) view returns (uint256)',
  'function mint(address to, uint256 value)',
]);
