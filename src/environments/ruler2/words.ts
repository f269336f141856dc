// The words that make needle keys ("adjective-noun", as RULER's keys look). Written for Gymflow: any
// list works as long as it is fixed, since the generator's seed must always give the same rows.
export const ADJECTIVES = `
able acid aged airy amber ample angry arctic ashen awake bald bare basic bent best big bitter black bland
blue bold bony brave brief bright brisk broad brown bumpy busy calm candid cheap chief chilly civil clean
clear clever close cloudy coarse cold cool coral cosy crisp cruel curly curvy damp dark dear deep dense
dim dizzy dry dull dusty eager early easy elder empty equal even exact faint fair false fancy fast fat
feral fierce fine firm flat fond frail free fresh frosty full fuzzy gentle giant glad glossy golden good
grand grave gray great green grim gusty happy hard harsh hasty heavy hidden high hollow honest huge humble
icy idle inner ivory jolly juicy keen kind large late lazy lean light limp little lively livid lone long
loose loud low loyal lucky lunar mad magic major meek mellow merry mild minor misty modern moist muddy
murky mute naive narrow neat new nice nimble noble noisy odd old olive open oval pale plain plump polite
poor proud pure quick quiet rapid rare raw ready regal rich rigid ripe rough round royal rude rusty sad
safe salty sandy scarce shaky sharp shiny short shy silent silky silver simple sleepy slim slow small smart
smooth snowy soft solar solid sour spicy stale steady steep sticky stiff still stout strange strict strong
sunny super sweet swift tall tame tart tender thick thin tidy tiny tired tough true twin ugly upper urban
vast velvet vivid warm wary weak wet white whole wide wild windy wise witty wooden young zesty
`
  .trim()
  .split(/\s+/);

export const NOUNS = `
acorn actor anchor angle ant apple arch arrow atlas attic badge bag bakery ball banjo barn basket bat beach
bead beam bean bear beetle bell bench berry bird blade blanket boat bolt bone book boot bottle bowl box
branch bread brick bridge brook broom brush bucket bull button cabin cactus cake camel camera candle canoe
canyon cape card carpet castle cat cave cellar chain chair chalk cherry chess cliff clock cloud clover coat
comet compass cookie copper coral cord cotton cougar crab crane crayon creek crown crystal cup curtain
daisy deer desert desk diamond dish dock dolphin donkey door dove dragon drum duck eagle easel egg elbow
elk engine falcon feather fence fern ferry field fig finch flag flame flute fog forest fork fox frog
garden gate gem ghost glacier glove goat goose grape harbor harp hat hawk hedge helmet heron hill hive
horse island ivy jacket jar jelly jewel kettle key kite knight ladder lake lamp lantern leaf lemon lily
lion lizard lobster locket lotus magnet mango maple marble meadow melon mirror mole moon moss moth mountain
mouse mule nest needle nut oak oar ocean olive orchid otter owl paddle palace panda parrot peach pear
pebble pencil pepper piano pigeon pillow pine planet plum pond pony poppy puppy quail quill rabbit raft
raven reef ribbon river robin rocket rose ruby saddle sail salmon sand scarf seal shell ship shovel
sparrow spider sponge spoon squid star stone stork stream swan sword table thistle tiger torch tower
trail tulip turtle valley vase violin wagon walnut whale whistle willow window wolf wren yacht zebra
`
  .trim()
  .split(/\s+/);
