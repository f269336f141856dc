# The Gymflow worker image: sources run through tsx, as on a developer machine.
FROM node:20-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
ENV NODE_ENV=production
CMD ["node", "bin/gym.mjs", "worker", "start"]
